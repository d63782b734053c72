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

package differential

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
)

// report counts the differences of a run by class and keeps a few rows of
// each to print.
type report struct {
	mu        sync.Mutex
	allowed   map[string]int
	divergent map[string]int
	rows      map[string][]string
	scenarios int
	// stepsRun counts the sequence steps compared; stepBudget is the
	// share of them the allow-list may excuse before the run fails (0: no
	// budget, as in the regressions tables, which hold excused sequences
	// on purpose).
	stepsRun   int
	stepBudget float64
	// flaky counts the differences a second run did not show again.
	flaky      int
	flakyRows  []string
	seed       int64
	suiteLabel string
	// liveness and faults make the liveness table (liveness_test.go).
	// steps counts, per allow-list class, the sequence steps its entry
	// excused (excuse.go); misuses are the rows where an entry fired
	// outside its documented condition.
	steps                                 map[string]excuseUses
	misuses                               []string
	liveness                              map[string]*liveness
	faults                                faultTally
	upstreamScaleGets, upstreamStaleSkips int
	upstreamHandovers                     int
	upstreamSlowAnswers                   int
}

func newReport(label string, seed int64) *report {
	return &report{allowed: map[string]int{}, divergent: map[string]int{}, rows: map[string][]string{}, steps: map[string]excuseUses{}, seed: seed, suiteLabel: label}
}

func (r *report) count() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scenarios++
}

// countSteps counts the steps of a sequence compared.
func (r *report) countSteps(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stepsRun += n
}

// excusedSteps counts the steps any entry excused.
func (r *report) excusedSteps() int {
	n := 0
	for _, u := range r.steps {
		n += u.caused + u.carried
	}
	return n
}

func (r *report) addFlaky(where string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flaky++
	r.flakyRows = append(r.flakyRows, where)
}

func (r *report) add(class string, by []*allowed, row string) {
	if class == "" && len(by) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(by) > 0 {
		for _, a := range by {
			r.allowed[a.Class]++
		}
		return
	}
	r.divergent[class]++
	if len(r.rows[class]) < *showFlag {
		r.rows[class] = append(r.rows[class], row)
	}
}

// excused counts a sequence whose every difference the allow-list
// excused, and the steps each entry excused.
func (r *report) excused(v verdict) {
	r.add("", v.by, "")
	r.mu.Lock()
	defer r.mu.Unlock()
	for a, u := range v.uses {
		t := r.steps[a.Class]
		t.caused += u.caused
		t.carried += u.carried
		r.steps[a.Class] = t
	}
}

func (r *report) addMisuse(row string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.misuses = append(r.misuses, row)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// finish logs the counts and fails the test on any divergence outside the
// allow-list, printing its rows.
func (r *report) finish(t *testing.T) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d scenarios (seed %d)\n", r.suiteLabel, r.scenarios, r.seed)
	for _, k := range sortedKeys(r.allowed) {
		steps := ""
		if u, ok := r.steps[k]; ok {
			steps = fmt.Sprintf(" (steps: %d where it holds, %d after; %s of the steps)", u.caused, u.carried, percentOf(u.caused+u.carried, r.stepsRun))
		}
		fmt.Fprintf(&b, "  allowed    %6d  %s%s\n", r.allowed[k], k, steps)
	}
	for _, k := range sortedKeys(r.divergent) {
		fmt.Fprintf(&b, "  DIVERGENT  %6d  %s\n", r.divergent[k], k)
	}
	if r.stepsRun > 0 {
		fmt.Fprintf(&b, "  steps: %d compared, %d excused (%s)\n", r.stepsRun, r.excusedSteps(), percentOf(r.excusedSteps(), r.stepsRun))
	}
	if r.flaky > 0 {
		fmt.Fprintf(&b, "  not reproduced on a second run: %d (%s)\n", r.flaky, strings.Join(r.flakyRows[:min(len(r.flakyRows), 10)], "; "))
	}
	if r.liveness != nil {
		b.WriteString(r.livenessTable())
	}
	t.Log(b.String())
	for _, class := range r.unexplainedLiveness() {
		t.Errorf("sequences %s rescaled on one controller only, with no excuse", class)
	}
	// An allow-list that excuses more than a sliver of the steps hides a
	// regression among them: the budget keeps each entry narrow.
	if r.stepBudget > 0 && r.stepsRun > 0 && float64(r.excusedSteps()) > r.stepBudget*float64(r.stepsRun) {
		t.Errorf("the allow-list excused %d of %d steps (%s), above the budget of %.2f%%: an entry is wider than its difference",
			r.excusedSteps(), r.stepsRun, percentOf(r.excusedSteps(), r.stepsRun), 100*r.stepBudget)
	}
	for _, row := range r.misuses {
		t.Errorf("allow-list entry used outside its documented condition:\n%s", row)
	}
	for _, k := range sortedKeys(r.divergent) {
		for _, row := range r.rows[k] {
			t.Errorf("divergence %s:\n%s", k, row)
		}
	}
	if len(r.divergent) > 0 && *showFlag <= 0 {
		t.Errorf("%d classes of divergence (run with -show to print them)", len(r.divergent))
	}
}

func percentOf(n, total int) string {
	if total == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.3f%%", 100*float64(n)/float64(total))
}
