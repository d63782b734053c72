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
	"cmp"
	"fmt"
	"slices"
)

// Assign returns the target owner of each of shards shards, given the live
// replicas, the current owner of each shard as read from its lease (""
// when the shard is free or its lease expired; current may be nil when every
// shard is free), and the number of HPAs in each shard as its last holder
// published it (nil when nothing is known).
//
// A shard's load is its HPAs plus one, for what any shard costs (its
// informers' share, its lease); with no HPAs known every shard weighs the
// same and every replica gets floor(shards/R) or ceil(shards/R) of them.
// Among the assignments that balance load it keeps as many shards as it can
// with their current owners:
//
//   - a live replica keeps every shard it holds;
//   - the other shards (free, or held by a replica that is not live) go in
//     shard order to the first replica, in identity order, whose load stays
//     within the fair share with half the shard's load, else to the least
//     loaded one, so a cold start gives each replica one contiguous block;
//   - then the least loaded replica is handed shards from the most loaded
//     ones that can give one, while the two differ by a margin (two shards'
//     base loads, or a tenth of a fair share of HPAs if that is more): the
//     shard that evens them best, if that lowers the larger load by the
//     margin (or by the shard's whole load, if less), preferring a shard not
//     held yet, then the highest.
//
// Each move restarts the informers of two replicas: the margin keeps HPA
// counts that drift a little from moving shards back and forth.
// The result depends only on the inputs, not on the order of live, so every
// replica computes the same target from the same view of the leases. With no
// live replica every target is "".
func Assign(shards int, live, current []string, hpas []int) ([]string, error) {
	if err := validateShardCount(shards); err != nil {
		return nil, err
	}
	if current != nil && len(current) != shards {
		return nil, fmt.Errorf("current owners cover %d shards, want %d", len(current), shards)
	}
	if hpas != nil && len(hpas) != shards {
		return nil, fmt.Errorf("HPA counts cover %d shards, want %d", len(hpas), shards)
	}
	replicas, err := liveReplicas(live)
	if err != nil {
		return nil, err
	}
	target := make([]string, shards)
	if len(replicas) == 0 {
		return target, nil
	}
	b, err := newBalance(shards, replicas, hpas)
	if err != nil {
		return nil, err
	}
	for i, owner := range current {
		if b.isLive(owner) {
			b.give(target, i, owner)
		}
	}
	for i := range target {
		if target[i] == "" {
			b.give(target, i, b.fillTo(i))
		}
	}
	b.even(target, current)
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

// balance is the bookkeeping of one Assign: each shard's load and each
// replica's total. Loads are int64 so that any HPA count sums safely.
type balance struct {
	replicas []string
	weight   []int64
	load     map[string]int64
	// total is the sum of the shards' loads, margin the least improvement
	// worth a move.
	total, margin int64
}

func newBalance(shards int, replicas []string, hpas []int) (*balance, error) {
	b := &balance{replicas: replicas, weight: make([]int64, shards), load: make(map[string]int64, len(replicas))}
	var counted int64
	for i := range b.weight {
		var n int64
		if hpas != nil {
			if hpas[i] < 0 {
				return nil, fmt.Errorf("shard %d has %d HPAs, want 0 or more", i, hpas[i])
			}
			n = int64(hpas[i])
		}
		b.weight[i] = 1 + n
		b.total += b.weight[i]
		counted += n
	}
	b.margin = max(2, counted/int64(10*len(replicas)))
	return b, nil
}

func (b *balance) isLive(r string) bool {
	_, found := slices.BinarySearch(b.replicas, r)
	return found
}

func (b *balance) give(target []string, i int, to string) {
	if target[i] != "" {
		b.load[target[i]] -= b.weight[i]
	}
	target[i] = to
	b.load[to] += b.weight[i]
}

// fillTo picks the owner of shard i, which nobody live holds: the first
// replica whose load with half of the shard's stays within the fair share
// (total/R, compared times 2R to stay in integers), else the least loaded.
func (b *balance) fillTo(i int) string {
	r := int64(len(b.replicas))
	for _, to := range b.replicas {
		if (2*b.load[to]+b.weight[i])*r <= 2*b.total {
			return to
		}
	}
	return b.lightest()
}

// lightest returns the least loaded replica; of equals the one the fill
// order reaches last, so the fill of a cold start stays contiguous.
func (b *balance) lightest() string {
	best := b.replicas[0]
	for _, r := range b.replicas[1:] {
		if b.load[r] <= b.load[best] {
			best = r
		}
	}
	return best
}

// even hands shards to the least loaded replica while that evens the load:
// from the most loaded replicas that can give one, the shard that evens the
// two best, as long as the two differ by the margin or more and the move
// lowers the larger load by the margin or by the whole shard's load, if
// that is less. A move is undone only by counts drifting by that much.
// Every move lowers the sum of squared loads, so the loop ends; the bound
// is a guard.
func (b *balance) even(target, current []string) {
	for range len(target) * len(b.replicas) {
		to := b.lightest()
		best := -1
		for _, from := range b.byLoad() {
			if best = b.bestMove(target, current, from, to); best >= 0 {
				break
			}
		}
		if best < 0 {
			return
		}
		b.give(target, best, to)
	}
}

// byLoad groups the replicas by load, from the most loaded: the replicas of
// equal load are candidates together, so that one holding a shard it has
// not started on gives that before another stops one it works.
func (b *balance) byLoad() [][]string {
	sorted := slices.SortedStableFunc(slices.Values(b.replicas), func(x, y string) int { return cmp.Compare(b.load[y], b.load[x]) })
	var groups [][]string
	for _, r := range sorted {
		if n := len(groups); n > 0 && b.load[groups[n-1][0]] == b.load[r] {
			groups[n-1] = append(groups[n-1], r)
			continue
		}
		groups = append(groups, []string{r})
	}
	return groups
}

// bestMove returns the shard of the replicas from (of equal load) whose
// move to to evens their loads best within the rules of even, or -1.
func (b *balance) bestMove(target, current, from []string, to string) int {
	gap := b.load[from[0]] - b.load[to]
	if gap < b.margin {
		return -1
	}
	best, bestGain := -1, int64(0)
	for i, owner := range target {
		if !slices.Contains(from, owner) || b.weight[i] >= gap {
			continue
		}
		gain := min(b.weight[i], gap-b.weight[i])
		if gain < min(b.margin, b.weight[i]) {
			continue
		}
		if best < 0 || gain > bestGain || gain == bestGain && preferred(i, best, target, current) {
			best, bestGain = i, gain
		}
	}
	return best
}

// preferred tells whether shard i is a better one to move than shard j of
// equal gain: one its replica does not hold yet (nothing to stop), then the
// higher one (the replica keeps its lowest shards).
func preferred(i, j int, target, current []string) bool {
	heldI, heldJ := current != nil && current[i] == target[i], current != nil && current[j] == target[j]
	if heldI != heldJ {
		return !heldI
	}
	return i > j
}
