package shard

import (
	"cmp"
	"fmt"
	"slices"
)

// Assign returns the target owner of each of shards shards, given the live
// replicas and the current owner of each shard as read from its lease (""
// when the shard is free or its lease expired; current may be nil when every
// shard is free).
//
// Every live replica is given floor(shards/R) or ceil(shards/R) shards, R
// being the number of distinct live replicas. Among such assignments it
// keeps as many shards as possible with their current owners:
//
//   - the larger quotas go to the replicas holding the most shards, ties
//     going to the smaller identity;
//   - a live replica keeps its lowest-numbered shards up to its quota;
//   - the remaining shards (free, held by a replica that is not live, or
//     beyond their owner's quota) are handed out in shard order to the
//     replicas still short of their quota, in identity order, so a cold
//     start gives each replica one contiguous block.
//
// The result depends only on the inputs, not on the order of live, so
// every replica computes the same target from the same view of the leases.
// With no live replica every target is "".
func Assign(shards int, live, current []string) ([]string, error) {
	if err := validateShardCount(shards); err != nil {
		return nil, err
	}
	if current != nil && len(current) != shards {
		return nil, fmt.Errorf("current owners cover %d shards, want %d", len(current), shards)
	}
	replicas, err := liveReplicas(live)
	if err != nil {
		return nil, err
	}
	target := make([]string, shards)
	if len(replicas) == 0 {
		return target, nil
	}

	quota := quotas(shards, replicas, current)
	assigned := make(map[string]int, len(replicas))
	for i, owner := range current {
		if q, ok := quota[owner]; ok && assigned[owner] < q {
			target[i] = owner
			assigned[owner]++
		}
	}
	next := 0
	for i := range target {
		if target[i] != "" {
			continue
		}
		for assigned[replicas[next]] >= quota[replicas[next]] {
			next++
		}
		target[i] = replicas[next]
		assigned[replicas[next]]++
	}
	return target, nil
}

// liveReplicas returns the distinct live identities in ascending order.
func liveReplicas(live []string) ([]string, error) {
	replicas := slices.Clone(live)
	slices.Sort(replicas)
	replicas = slices.Compact(replicas)
	if len(replicas) > 0 && replicas[0] == "" {
		return nil, fmt.Errorf("a live replica has an empty identity, which is reserved for free shards")
	}
	return replicas, nil
}

// quotas returns how many shards each replica gets: shards/R each, plus one
// for the shards%R replicas that hold the most shards now (ties by identity),
// as those are the ones that would otherwise have to give one up.
func quotas(shards int, replicas, current []string) map[string]int {
	held := make(map[string]int, len(replicas))
	for _, owner := range current {
		held[owner]++
	}
	byHeld := slices.Clone(replicas)
	slices.SortStableFunc(byHeld, func(a, b string) int { return cmp.Compare(held[b], held[a]) })

	base, extra := shards/len(replicas), shards%len(replicas)
	quota := make(map[string]int, len(replicas))
	for i, r := range byHeld {
		quota[r] = base
		if i < extra {
			quota[r]++
		}
	}
	return quota
}
