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
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// owners builds a current-owner slice from runs: owners("a", 3, "", 2)
// is [a a a "" ""].
func owners(runs ...any) []string {
	var out []string
	for i := 0; i < len(runs); i += 2 {
		for range runs[i+1].(int) {
			out = append(out, runs[i].(string))
		}
	}
	return out
}

func counts(target []string) map[string]int {
	c := map[string]int{}
	for _, o := range target {
		c[o]++
	}
	return c
}

// moved counts the shards whose live current owner loses them.
func moved(current, target []string, live []string) int {
	n := 0
	for i := range current {
		if current[i] != "" && slices.Contains(live, current[i]) && current[i] != target[i] {
			n++
		}
	}
	return n
}

func TestAssign(t *testing.T) {
	tests := []struct {
		name      string
		shards    int
		live      []string
		current   []string
		want      []string
		wantMoved int
	}{
		{
			name:   "three replicas on sixteen free shards get contiguous blocks of 5, 5 and 6",
			shards: 16,
			live:   []string{"c", "a", "b"},
			want:   owners("a", 5, "b", 5, "c", 6),
		},
		{
			name:    "a balanced assignment is kept as is",
			shards:  16,
			live:    []string{"a", "b", "c"},
			current: owners("a", 6, "b", 5, "c", 5),
			want:    owners("a", 6, "b", 5, "c", 5),
		},
		{
			name:      "a joining replica takes only what the others have above their new share",
			shards:    16,
			live:      []string{"a", "b", "c", "d"},
			current:   owners("a", 6, "b", 5, "c", 5),
			want:      owners("a", 4, "d", 2, "b", 4, "d", 1, "c", 4, "d", 1),
			wantMoved: 4,
		},
		{
			name:      "a leaving replica's shards are spread over the others",
			shards:    16,
			live:      []string{"a", "b"},
			current:   owners("a", 6, "b", 5, "c", 5),
			want:      owners("a", 6, "b", 5, "a", 2, "b", 3),
			wantMoved: 0,
		},
		{
			name:      "the extra shard stays with the replica already holding it",
			shards:    16,
			live:      []string{"a", "b", "c"},
			current:   owners("a", 5, "b", 5, "c", 6),
			want:      owners("a", 5, "b", 5, "c", 6),
			wantMoved: 0,
		},
		{
			name:      "free shards go to the replicas short of their share",
			shards:    8,
			live:      []string{"a", "b"},
			current:   owners("a", 2, "", 4, "b", 2),
			want:      owners("a", 2, "a", 2, "b", 2, "b", 2),
			wantMoved: 0,
		},
		{
			name:      "an overloaded replica keeps its lowest shards",
			shards:    8,
			live:      []string{"a", "b"},
			current:   owners("a", 8),
			want:      owners("a", 4, "b", 4),
			wantMoved: 4,
		},
		{
			name:    "no live replica leaves every shard without owner",
			shards:  4,
			live:    nil,
			current: owners("a", 4),
			want:    owners("", 4),
		},
		{
			name:   "more replicas than shards gives one shard each to the first replicas",
			shards: 2,
			live:   []string{"d", "c", "b", "a"},
			want:   []string{"a", "b"},
		},
		{
			name:    "more replicas than shards keeps the current holders",
			shards:  2,
			live:    []string{"a", "b", "c", "d"},
			current: []string{"d", "c"},
			want:    []string{"d", "c"},
		},
		{
			name:    "duplicate live identities count once",
			shards:  4,
			live:    []string{"a", "b", "a"},
			current: nil,
			want:    owners("a", 2, "b", 2),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkAssign(t, tc.shards, tc.live, tc.current, nil, tc.want, tc.wantMoved)
		})
	}
}

// checkAssign compares Assign's target and the shards it takes from live
// owners with the wanted ones.
func checkAssign(t *testing.T, shards int, live, current []string, hpas []int, want []string, wantMoved int) {
	t.Helper()
	got, err := Assign(shards, live, current, hpas)
	if err != nil {
		t.Fatalf("Assign: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Assign mismatch (-want +got):\n%s", diff)
	}
	if current != nil {
		if n := moved(current, got, live); n != wantMoved {
			t.Errorf("Assign moved %d shards from live owners, want %d", n, wantMoved)
		}
	}
}

func TestAssignRejectsBadInput(t *testing.T) {
	tests := []struct {
		name    string
		shards  int
		live    []string
		current []string
	}{
		{name: "zero shards", shards: 0, live: []string{"a"}},
		{name: "too many shards", shards: MaxShards + 1, live: []string{"a"}},
		{name: "current owners of another shard count", shards: 4, live: []string{"a"}, current: owners("a", 3)},
		{name: "empty replica identity", shards: 4, live: []string{"a", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := Assign(tc.shards, tc.live, tc.current, nil); err == nil {
				t.Errorf("Assign() = %v, want an error", got)
			}
		})
	}
}

// TestAssignProperties checks on random inputs that every shard goes to a
// live replica, shares differ by at most one, no assignment with such
// shares keeps more shards with their live owners, and the result does not
// depend on the order of the live replicas.
func TestAssignProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pool := []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"}
	for iter := range 500 {
		shards := 1 + rng.IntN(40)
		live := slices.Clone(pool[:1+rng.IntN(len(pool))])
		current := make([]string, shards)
		for i := range current {
			// Owners may be live, gone, or absent.
			if k := rng.IntN(len(pool) + 2); k < len(pool) {
				current[i] = pool[k]
			}
		}
		name := fmt.Sprintf("case %d: %d shards, live %v, current %v", iter, shards, live, current)

		target, err := Assign(shards, live, current, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := counts(target)
		low, high := shards/len(live), (shards+len(live)-1)/len(live)
		for _, r := range live {
			if c[r] < low || c[r] > high {
				t.Errorf("%s: %s gets %d shards, want %d to %d", name, r, c[r], low, high)
			}
		}
		for i, o := range target {
			if !slices.Contains(live, o) {
				t.Errorf("%s: shard %d goes to %q, not a live replica", name, i, o)
			}
		}
		if kept, best := shards-moved(current, target, live)-free(current, live), maxKept(shards, live, current); kept != best {
			t.Errorf("%s: keeps %d shards with their owners, the best fair assignment keeps %d", name, kept, best)
		}

		shuffled := slices.Clone(live)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		again, err := Assign(shards, shuffled, current, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(target, again) {
			t.Errorf("%s: live order %v gives %v, order %v gives %v", name, live, target, shuffled, again)
		}
	}
}

// free counts shards with no live owner.
func free(current, live []string) int {
	n := 0
	for _, o := range current {
		if !slices.Contains(live, o) {
			n++
		}
	}
	return n
}

// maxKept is the most shards any fair assignment leaves with their live
// owners, found by trying every choice of which replicas get the larger
// share.
func maxKept(shards int, live, current []string) int {
	held := counts(current)
	base, extra := shards/len(live), shards%len(live)
	best := 0
	for mask := 0; mask < 1<<len(live); mask++ {
		if popcount(mask) != extra {
			continue
		}
		kept := 0
		for i, r := range live {
			share := base
			if mask&(1<<i) != 0 {
				share++
			}
			kept += min(held[r], share)
		}
		best = max(best, kept)
	}
	return best
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestAssignWeighsShardsByTheirHPAs(t *testing.T) {
	tests := []struct {
		name      string
		live      []string
		current   []string
		hpas      []int
		want      []string
		wantMoved int
	}{
		{
			name: "a heavy shard is balanced by the light ones on a cold start",
			live: []string{"a", "b"},
			hpas: []int{9, 0, 0, 0},
			want: []string{"a", "b", "b", "b"},
		},
		{
			name:      "shards move to even the HPAs, not the shard counts",
			live:      []string{"a", "b"},
			current:   owners("a", 2, "b", 2),
			hpas:      []int{40, 40, 0, 0},
			want:      owners("a", 1, "b", 3),
			wantMoved: 1,
		},
		{
			name:      "a joining replica takes the shard that evens the load best",
			live:      []string{"a", "b"},
			current:   owners("a", 4),
			hpas:      []int{0, 0, 0, 30},
			want:      owners("a", 3, "b", 1),
			wantMoved: 1,
		},
		{
			name:      "HPA counts a few apart move no shard",
			live:      []string{"a", "b"},
			current:   owners("a", 2, "b", 2),
			hpas:      []int{100, 1, 50, 45},
			want:      owners("a", 2, "b", 2),
			wantMoved: 0,
		},
		{
			name:      "a move that gains less than the margin is not made",
			live:      []string{"a", "b"},
			current:   owners("a", 2, "b", 1),
			hpas:      []int{40, 19, 39},
			want:      owners("a", 2, "b", 1),
			wantMoved: 0,
		},
		{
			name:      "shards of equal weight are shared as counts are",
			live:      []string{"a", "b", "c"},
			current:   owners("a", 6),
			hpas:      []int{7, 7, 7, 7, 7, 7},
			want:      []string{"a", "a", "b", "c", "b", "c"},
			wantMoved: 4,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkAssign(t, len(tc.hpas), tc.live, tc.current, tc.hpas, tc.want, tc.wantMoved)
		})
	}
}

func TestAssignRejectsBadHPACounts(t *testing.T) {
	for name, hpas := range map[string][]int{
		"a negative count":         {1, -1, 0, 0},
		"counts of another length": {1, 2, 3},
	} {
		if _, err := Assign(4, []string{"a"}, nil, hpas); err == nil {
			t.Errorf("%s: Assign accepted %v", name, hpas)
		}
	}
}

// TestAssignWeightedProperties checks on random HPA counts that every shard
// goes to a live replica, the result does not depend on the order of the
// live replicas, and an assignment is a fixed point: planned again from its
// own result with the same counts it moves nothing, so replicas that agree
// on the leases stop handing shards over.
func TestAssignWeightedProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pool := []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"}
	for iter := range 500 {
		shards := 1 + rng.IntN(64)
		live := slices.Clone(pool[:1+rng.IntN(len(pool))])
		current := make([]string, shards)
		hpas := make([]int, shards)
		for i := range current {
			if k := rng.IntN(len(pool) + 2); k < len(pool) {
				current[i] = pool[k]
			}
			// Mostly small shards, a few tenants far larger.
			hpas[i] = rng.IntN(50)
			if rng.IntN(8) == 0 {
				hpas[i] = rng.IntN(2000)
			}
		}
		name := fmt.Sprintf("case %d: %d shards, live %v", iter, shards, live)
		target, err := Assign(shards, live, current, hpas)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, o := range target {
			if !slices.Contains(live, o) {
				t.Errorf("%s: shard %d goes to %q, not a live replica", name, i, o)
			}
		}
		shuffled := slices.Clone(live)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if again, _ := Assign(shards, shuffled, current, hpas); !slices.Equal(target, again) {
			t.Errorf("%s: live order changes the result", name)
		}
		if again, _ := Assign(shards, live, target, hpas); !slices.Equal(target, again) {
			t.Errorf("%s: not a fixed point: %v, then %v", name, target, again)
		}
	}
}
