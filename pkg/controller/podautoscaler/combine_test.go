package podautoscaler

import (
	"errors"
	"testing"
)

// TestCombineProposals pins upstream's choice among valid proposals: the
// largest wins, ties above zero go to the first, and a running best of zero
// is replaced by any later proposal, so that when every metric proposes
// zero the last one is named.
func TestCombineProposals(t *testing.T) {
	valid := func(name string, replicas int32) proposal { return proposal{name: name, replicas: replicas} }
	invalid := func(name string) proposal { return proposal{name: name, err: errors.New(name + " failed")} }
	cases := []struct {
		name        string
		proposals   []proposal
		wantBest    string
		wantInvalid int
		wantFirst   string
	}{
		{name: "the largest proposal wins", proposals: []proposal{valid("a", 2), valid("b", 5), valid("c", 3)}, wantBest: "b"},
		{name: "a tie above zero goes to the first", proposals: []proposal{valid("a", 4), valid("b", 4)}, wantBest: "a"},
		{name: "every metric proposing zero names the last", proposals: []proposal{valid("a", 0), valid("b", 0), valid("c", 0)}, wantBest: "c"},
		{name: "a zero after a positive proposal does not replace it", proposals: []proposal{valid("a", 0), valid("b", 2), valid("c", 0)}, wantBest: "b"},
		{
			name:      "invalid proposals are counted and the first is kept",
			proposals: []proposal{invalid("a"), valid("b", 0), invalid("c"), valid("d", 0)},
			wantBest:  "d", wantInvalid: 2, wantFirst: "a",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			best, inv := combineProposals(tc.proposals)
			if best.name != tc.wantBest {
				t.Errorf("best = %q, want %q", best.name, tc.wantBest)
			}
			if inv.count != tc.wantInvalid || inv.first.name != tc.wantFirst {
				t.Errorf("invalid = %d (first %q), want %d (first %q)", inv.count, inv.first.name, tc.wantInvalid, tc.wantFirst)
			}
		})
	}
}
