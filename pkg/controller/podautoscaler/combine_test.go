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
		wantIndex   int
		wantInvalid int
		wantFirst   string
	}{
		{name: "the largest proposal wins", proposals: []proposal{valid("a", 2), valid("b", 5), valid("c", 3)}, wantBest: "b", wantIndex: 1},
		{name: "a tie above zero goes to the first", proposals: []proposal{valid("a", 4), valid("b", 4)}, wantBest: "a", wantIndex: 0},
		{name: "every metric proposing zero names the last", proposals: []proposal{valid("a", 0), valid("b", 0), valid("c", 0)}, wantBest: "c", wantIndex: 2},
		{name: "a zero after a positive proposal does not replace it", proposals: []proposal{valid("a", 0), valid("b", 2), valid("c", 0)}, wantBest: "b", wantIndex: 1},
		{name: "a negative proposal is not zero, so a lower one after it does not replace it", proposals: []proposal{valid("a", -1), valid("b", -3)}, wantBest: "a", wantIndex: 0},
		{name: "a zero proposal gives way to a later negative one", proposals: []proposal{valid("a", 0), valid("b", -2)}, wantBest: "b", wantIndex: 1},
		{
			name:      "invalid proposals are counted and the first is kept",
			proposals: []proposal{invalid("a"), valid("b", 0), invalid("c"), valid("d", 0)},
			wantBest:  "d", wantIndex: 3, wantInvalid: 2, wantFirst: "a",
		},
		{name: "no valid proposal has no index", proposals: []proposal{invalid("a"), invalid("b")}, wantIndex: -1, wantInvalid: 2, wantFirst: "a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			best, index, inv := combineProposals(tc.proposals)
			if best.name != tc.wantBest || index != tc.wantIndex {
				t.Errorf("best = %q (index %d), want %q (index %d)", best.name, index, tc.wantBest, tc.wantIndex)
			}
			if inv.count != tc.wantInvalid || inv.first.name != tc.wantFirst {
				t.Errorf("invalid = %d (first %q), want %d (first %q)", inv.count, inv.first.name, tc.wantInvalid, tc.wantFirst)
			}
		})
	}
}

func TestAdopt(t *testing.T) {
	cases := []struct {
		name     string
		current  int32
		best     proposal
		wantPlan plan
	}{
		{name: "a proposal above the current count names its metric", current: 2, best: proposal{name: "qps", replicas: 5}, wantPlan: plan{desired: 5, reason: "qps above target"}},
		{name: "a proposal below the current count is all metrics below target", current: 4, best: proposal{name: "qps", replicas: 1}, wantPlan: plan{desired: 1, reason: "All metrics below target"}},
		{name: "a proposal at the current count gives no reason", current: 3, best: proposal{name: "qps", replicas: 3}, wantPlan: plan{desired: 3}},
		{name: "a negative proposal plans zero replicas, as upstream", current: 3, best: proposal{name: "qps", replicas: -2}, wantPlan: plan{desired: 0, reason: "All metrics below target"}},
		{name: "a negative proposal at zero replicas plans zero with no reason", current: 0, best: proposal{name: "qps", replicas: -2}, wantPlan: plan{desired: 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := adopt(tc.current, tc.best); got != tc.wantPlan {
				t.Errorf("adopt(%d, %+v) = %+v, want %+v", tc.current, tc.best, got, tc.wantPlan)
			}
		})
	}
}
