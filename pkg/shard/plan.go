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
	"fmt"
	"slices"
)

// Moves is what one replica does to bring the leases it holds toward the
// target assignment. Shards change hands in two steps: the current owner
// releases a shard, then its target acquires it once it is free; no replica
// takes a shard another still holds.
type Moves struct {
	// Release lists, in ascending order, the shards the replica holds whose
	// target is another replica: it holds more than its share, or is not
	// live.
	Release []int
	// Acquire lists, in ascending order, the free shards targeted to the
	// replica. Shards targeted to it but still held by another replica, live
	// or with an unexpired lease, are left until they are released or expire.
	Acquire []int
}

// Standing is what a replica read of its group's leases.
type Standing struct {
	// Live lists the live replicas.
	Live []string
	// Current is the holder of each shard, "" when it is free or its lease
	// expired; nil when every shard is free.
	Current []string
	// Released names, for a free shard, the replica that released it (""
	// for none); nil when none was released. Planning counts such a shard
	// as still its releaser's while that one is live, so that the plan made
	// while the shard is on its way is the plan that sent it, and it goes
	// where it was sent rather than back.
	Released []string
	// HPAs is each shard's HPA count as its holder last wrote it; nil when
	// nothing is known.
	HPAs []int
}

// PlanReplica returns the moves of replica self, computing the target with
// Assign. A replica shutting down passes Live without itself and is told to
// release everything it holds.
func PlanReplica(self string, shards int, s Standing) (Moves, error) {
	if self == "" {
		return Moves{}, fmt.Errorf("the replica has an empty identity, which is reserved for free shards")
	}
	if s.Released != nil && len(s.Released) != shards {
		return Moves{}, fmt.Errorf("releasers cover %d shards, want %d", len(s.Released), shards)
	}
	target, err := Assign(shards, s.Live, planningBasis(shards, s), s.HPAs)
	if err != nil {
		return Moves{}, err
	}
	var moves Moves
	for i, want := range target {
		var have string
		if s.Current != nil {
			have = s.Current[i]
		}
		switch {
		case have == self && want != self:
			moves.Release = append(moves.Release, i)
		case have == "" && want == self:
			moves.Acquire = append(moves.Acquire, i)
		}
	}
	return moves, nil
}

// planningBasis is Current with each free shard given to its releaser.
func planningBasis(shards int, s Standing) []string {
	if s.Released == nil {
		return s.Current
	}
	basis := make([]string, shards)
	if s.Current != nil {
		copy(basis, s.Current)
	}
	for i, by := range s.Released {
		if basis[i] == "" {
			basis[i] = by
		}
	}
	return basis
}

// Owned returns the ranges of Split(len(owners)) whose owner is self, for
// building the replica's Filter and shardSelector.
func Owned(self string, owners []string) ([]Range, error) {
	all, err := Split(len(owners))
	if err != nil {
		return nil, err
	}
	var owned []Range
	for i, owner := range owners {
		if owner == self {
			owned = append(owned, all[i])
		}
	}
	return slices.Clip(owned), nil
}
