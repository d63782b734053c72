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
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlanReplica(t *testing.T) {
	tests := []struct {
		name     string
		self     string
		shards   int
		live     []string
		current  []string
		released []string
		hpas     []int
		want     Moves
	}{
		{
			name:   "on a cold start each replica acquires its block",
			self:   "b",
			shards: 6,
			live:   []string{"a", "b", "c"},
			want:   Moves{Acquire: []int{2, 3}},
		},
		{
			name:    "an overloaded replica releases what it holds above its share",
			self:    "a",
			shards:  4,
			live:    []string{"a", "b"},
			current: owners("a", 4),
			want:    Moves{Release: []int{2, 3}},
		},
		{
			name:    "a joining replica waits for shards still held by others",
			self:    "b",
			shards:  4,
			live:    []string{"a", "b"},
			current: owners("a", 4),
			want:    Moves{},
		},
		{
			name:    "a joining replica acquires shards once released",
			self:    "b",
			shards:  4,
			live:    []string{"a", "b"},
			current: owners("a", 2, "", 2),
			want:    Moves{Acquire: []int{2, 3}},
		},
		{
			name:    "a replica shutting down releases everything",
			self:    "a",
			shards:  4,
			live:    []string{"b"},
			current: owners("a", 2, "b", 2),
			want:    Moves{Release: []int{0, 1}},
		},
		{
			name:    "shards of an expired replica are acquired once their lease is free",
			self:    "a",
			shards:  4,
			live:    []string{"a", "b"},
			current: []string{"gone", "", "b", "b"},
			want:    Moves{Acquire: []int{1}},
		},
		{
			name:     "a shard released toward a replica is acquired by it",
			self:     "b",
			shards:   4,
			live:     []string{"a", "b"},
			current:  owners("a", 2, "", 2),
			released: owners("", 2, "a", 2),
			want:     Moves{Acquire: []int{2, 3}},
		},
		{
			name:     "a replica does not take back the shards it released",
			self:     "a",
			shards:   4,
			live:     []string{"a", "b"},
			current:  owners("a", 2, "", 2),
			released: owners("", 2, "a", 2),
			want:     Moves{},
		},
		{
			name:     "shards released toward a replica go to it, not to another under its share",
			self:     "c",
			shards:   5,
			live:     []string{"a", "b", "c"},
			current:  []string{"a", "a", "", "", "b"},
			released: []string{"", "", "a", "a", ""},
			hpas:     []int{9, 9, 9, 9, 9},
			want:     Moves{Acquire: []int{2, 3}},
		},
		{
			name:     "the shards of a releaser that left are shared anew",
			self:     "a",
			shards:   4,
			live:     []string{"a", "b"},
			current:  owners("a", 1, "", 1, "b", 2),
			released: owners("", 1, "gone", 1, "", 2),
			want:     Moves{Acquire: []int{1}},
		},
		{
			name:    "a balanced replica has nothing to do",
			self:    "a",
			shards:  4,
			live:    []string{"a", "b"},
			current: owners("a", 2, "b", 2),
			want:    Moves{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanReplica(tc.self, tc.shards, Standing{Live: tc.live, Current: tc.current, Released: tc.released, HPAs: tc.hpas})
			if err != nil {
				t.Fatalf("PlanReplica: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PlanReplica mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanReplicaRejectsEmptyIdentity(t *testing.T) {
	if _, err := PlanReplica("", 4, Standing{Live: []string{"a"}}); err == nil {
		t.Error("PlanReplica accepted an empty identity")
	}
}

// TestPlanReplicaConverges runs release-then-acquire rounds for every
// replica from an unbalanced start and checks that the leases reach the
// target without a shard ever having two owners.
func TestPlanReplicaConverges(t *testing.T) {
	live := []string{"a", "b", "c", "d"}
	current := owners("a", 10, "gone", 4, "", 2)
	for round := 0; round < 4; round++ {
		for _, r := range live {
			moves, err := PlanReplica(r, len(current), Standing{Live: live, Current: current})
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range moves.Release {
				current[i] = ""
			}
			for _, i := range moves.Acquire {
				if current[i] != "" {
					t.Fatalf("round %d: %s acquires shard %d held by %s", round, r, i, current[i])
				}
				current[i] = r
			}
		}
		// Leases of the replica that is gone expire after the first round.
		for i, o := range current {
			if o == "gone" {
				current[i] = ""
			}
		}
	}
	want, err := Assign(len(current), live, current, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, current); diff != "" {
		t.Errorf("leases did not converge to the target (-want +got):\n%s", diff)
	}
	for _, r := range live {
		if c := counts(current)[r]; c != 4 {
			t.Errorf("%s holds %d shards, want 4", r, c)
		}
	}
}

func TestOwned(t *testing.T) {
	got, err := Owned("a", []string{"a", "b", "a", "a"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{{0, 1 << 62}, {2 << 62, 3 << 62}, {3 << 62, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Owned mismatch (-want +got):\n%s", diff)
	}
}
