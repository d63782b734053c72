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
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFilter(t *testing.T) {
	sixteen := mustSplit(t, 16)
	tests := []struct {
		name   string
		ranges []Range
		hash   uint64
		want   bool
	}{
		{name: "no ranges match nothing", ranges: nil, hash: 0, want: false},
		{name: "whole space matches everything", ranges: mustSplit(t, 1), hash: math.MaxUint64, want: true},
		{name: "hash in an owned range", ranges: []Range{sixteen[2], sixteen[9]}, hash: 9<<60 + 5, want: true},
		{name: "hash between owned ranges", ranges: []Range{sixteen[2], sixteen[9]}, hash: 5 << 60, want: false},
		{name: "hash below every owned range", ranges: []Range{sixteen[2], sixteen[9]}, hash: 1, want: false},
		{name: "end of an owned range is excluded", ranges: []Range{sixteen[2]}, hash: 3 << 60, want: false},
		{name: "last shard includes the maximum hash", ranges: []Range{sixteen[0], sixteen[15]}, hash: math.MaxUint64, want: true},
		{name: "adjacent ranges leave no hole at their seam", ranges: []Range{sixteen[4], sixteen[3]}, hash: 4 << 60, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := NewFilter(tc.ranges)
			if err != nil {
				t.Fatalf("NewFilter: %v", err)
			}
			if got := f.ContainsHash(tc.hash); got != tc.want {
				t.Errorf("ContainsHash(%#x) = %v, want %v", tc.hash, got, tc.want)
			}
		})
	}
}

func TestFilterZeroValueMatchesNothing(t *testing.T) {
	var f Filter
	if f.Matches("default") {
		t.Error("the zero Filter matches namespace default")
	}
}

func TestFilterRejectsEmptyRange(t *testing.T) {
	if _, err := NewFilter([]Range{{Start: 7, End: 7}}); err == nil {
		t.Error("NewFilter accepted an empty range")
	}
}

func TestFilterMergesRanges(t *testing.T) {
	sixteen := mustSplit(t, 16)
	f, err := NewFilter([]Range{sixteen[15], sixteen[1], sixteen[0], sixteen[14]})
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{{0, 2 << 60}, {14 << 60, 0}}
	if diff := cmp.Diff(want, f.Ranges()); diff != "" {
		t.Errorf("Ranges() mismatch (-want +got):\n%s", diff)
	}
}

// TestFilterAgreesWithSelector checks, for each shard of a split, that the
// Filter of that shard and the API server's evaluation of its selector pick
// the same namespaces, so client-side filtering gives what the server would.
func TestFilterAgreesWithSelector(t *testing.T) {
	namespaces := []string{"", "default", "kube-system", "kube-public", "kube-node-lease", "team-a", "team-b", "prod", "staging", "monitoring"}
	for _, r := range mustSplit(t, 8) {
		f, err := NewFilter([]Range{r})
		if err != nil {
			t.Fatal(err)
		}
		sel := parseSelector(t, r.Selector(NamespaceField))
		for _, ns := range namespaces {
			if got, want := f.Matches(ns), serverSelectsNamespace(t, sel, ns); got != want {
				t.Errorf("shard %+v, namespace %q: Filter %v, API server %v", r, ns, got, want)
			}
		}
	}
}

// TestEveryNamespaceHasExactlyOneShard checks that the filters of all shards
// of a split partition namespaces: each matches exactly one.
func TestEveryNamespaceHasExactlyOneShard(t *testing.T) {
	ranges := mustSplit(t, 5)
	filters := make([]Filter, len(ranges))
	for i, r := range ranges {
		f, err := NewFilter([]Range{r})
		if err != nil {
			t.Fatal(err)
		}
		filters[i] = f
	}
	for _, tc := range namespaceHashes {
		var owners []int
		for i, f := range filters {
			if f.Matches(tc.namespace) {
				owners = append(owners, i)
			}
		}
		if len(owners) != 1 || owners[0] != Index(NamespaceHash(tc.namespace), len(ranges)) {
			t.Errorf("namespace %q matched by shards %v, want exactly shard %d", tc.namespace, owners, Index(NamespaceHash(tc.namespace), len(ranges)))
		}
	}
}
