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

package shardlease

import (
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

// GroupLeasesSelector is the label selector of every Lease of group, its
// replicas' member Leases and its shard Leases: what each replica lists.
func GroupLeasesSelector(group string) string {
	return labels.SelectorFromSet(labels.Set{groupLabel: group}).String()
}

// PendingMoves reads the Leases of group with its shard count, as listed
// from outside the group, and returns the shards whose holder is not the
// one the replicas plan for it (shard.Assign over the replicas whose member
// Lease names a holder, each shard weighed by its counted HPAs): the
// handovers still to come. It fails while the Leases cannot tell, because a
// shard has no holder or no count yet, since the replicas may move shards
// once the last count is known. A holder written in a Lease counts as live:
// a reader outside the group has no sightings to expire it by, so this is for
// a group whose replicas run, such as a test that waits for the shares to
// settle rather than for a quiet interval.
func PendingMoves(leases []coordinationv1.Lease, group string, shards int) ([]int, error) {
	o := Options{Group: group, Shards: shards}
	var live []string
	current := make([]string, shards)
	hpas := make([]int, shards)
	counted := 0
	for i := range leases {
		l := &leases[i]
		holder := ptr.Deref(l.Spec.HolderIdentity, "")
		if l.Labels[groupLabel] != group || (sighting{lease: l}).count() != shards || holder == "" {
			continue
		}
		switch l.Labels[roleLabel] {
		case roleReplica:
			live = append(live, holder)
		case roleShard:
			s, ok := o.shardIndex(l.Name)
			if !ok {
				continue
			}
			current[s] = holder
			if n, ok := CountedHPAs(l); ok {
				hpas[s] = n
				counted++
			}
		}
	}
	for s, holder := range current {
		if holder == "" {
			return nil, fmt.Errorf("shard %d of group %s has no holder", s, group)
		}
	}
	if counted < shards {
		return nil, fmt.Errorf("%d of the %d shard Leases of group %s carry their HPA count", counted, shards, group)
	}
	target, err := shard.Assign(shards, live, current, hpas)
	if err != nil {
		return nil, err
	}
	var pending []int
	for s := range target {
		if target[s] != current[s] {
			pending = append(pending, s)
		}
	}
	return pending, nil
}
