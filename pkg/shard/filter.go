/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package shard

import (
	"slices"
	"sort"
)

// Filter selects namespaces by the hash ranges a replica owns, the same
// selection the API server makes for a shardSelector over
// object.metadata.namespace.
//
// A replica applies it to everything it receives, whatever the server did:
// an API server without the ShardedListAndWatch gate ignores the selector
// and says so only on list responses (see ShardApplied); a watch, and the
// watch-list stream client-go informers use by default, carry no such
// signal, and in a cluster whose API servers are being upgraded one request
// may be filtered and the next not.
//
// The zero Filter matches nothing.
type Filter struct {
	// ranges are valid, sorted by start, and neither touch nor overlap.
	ranges []Range
}

// NewFilter returns a Filter matching the namespaces that hash into any of
// ranges. Every range must be Valid. No ranges gives a Filter that matches
// nothing.
func NewFilter(ranges []Range) (Filter, error) {
	if err := validateRanges(ranges); err != nil {
		return Filter{}, err
	}
	return Filter{ranges: coalesce(ranges)}, nil
}

// Matches reports whether objects of namespace belong to the owned ranges.
func (f Filter) Matches(namespace string) bool {
	return f.ContainsHash(NamespaceHash(namespace))
}

// ContainsHash reports whether the hash h lies in one of the owned ranges.
func (f Filter) ContainsHash(h uint64) bool {
	// The first range starting above h is at i; only the one before it can
	// hold h.
	i := sort.Search(len(f.ranges), func(i int) bool { return f.ranges[i].Start > h })
	return i > 0 && f.ranges[i-1].Contains(h)
}

// Ranges returns the owned ranges, merged and sorted by start.
func (f Filter) Ranges() []Range {
	return slices.Clone(f.ranges)
}
