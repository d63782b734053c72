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

// PlanReplica returns the moves of replica self, computing the target with
// Assign from the same inputs. A replica shutting down passes live without
// itself and is told to release everything it holds.
func PlanReplica(self string, shards int, live, current []string, hpas []int) (Moves, error) {
	if self == "" {
		return Moves{}, fmt.Errorf("the replica has an empty identity, which is reserved for free shards")
	}
	target, err := Assign(shards, live, current, hpas)
	if err != nil {
		return Moves{}, err
	}
	var moves Moves
	for i, want := range target {
		var have string
		if current != nil {
			have = current[i]
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
