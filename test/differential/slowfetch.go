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
	"slices"
	"time"
)

// A slow fetch (fault.SlowFetch) is a metrics provider that answers, but
// only after slowFetchDelay: in both worlds, from the step drawn on to the
// sequence's end, every fetch of one metric of the HPA waits that long
// before it reads the step's answer (a value or the step's error, the same
// as an instant fetch would). The delay is well below kube-hpa's fetch
// budget (half the period), so its fetches never time out: the pass takes
// slowFetchDelay longer, in both worlds.
//
// Its sequences run kube-hpa without spreading (SpreadReconciles false):
// upstream counts its next pass from the end of the last one, so a pass
// that waited moves its next one by the wait, where kube-hpa's spread
// slots stay put and steps would no longer land between the same passes
// in both worlds. Without spreading kube-hpa's period counts from the
// pass's end too (cadence.Rules.AfterPass), so both keep one pace, drifting
// by the delay at every pass.
//
// One metric only, the HPA's last, whose fetch no other metric of the HPA
// shares (a Resource and a ContainerResource metric of one resource read
// the same answer): upstream fetches its metrics one after the other and
// kube-hpa all at once, so two slow fetches would make upstream's pass
// twice as long as kube-hpa's, and a metric after the slow one would be
// evaluated the delay later by upstream only. Unspread, kube-hpa stamps
// what it decides as upstream does (its recommendations and conditions
// when the metrics answered, a rescale once written: reconcile.go's
// stamp), so no entry excuses anything here: a step of these sequences
// is compared whole.
//
// Not in sequences with a twin (its pass and the first HPA's share an
// External fetch, and kube-hpa's unspread passes of the two no longer
// share a slot), with a handover (the new instance is built on the
// spread slot), or with the faults slowFetchMixes turns away.

// slowFetchDelay is how long a slow fetch takes to answer.
const slowFetchDelay = 2 * time.Second

// slowFetchShare is the share of the sequences drawn for slow fetches
// (fewer have one: those whose last metric is fetched alone, with no twin,
// handover or fault that does not mix). These sequences run kube-hpa
// unspread, not as shipped, so they are a minority.
const slowFetchShare = 0.15

// withSlowFetches gives some sequences slow fetches of one metric, from a
// step drawn on, drawn from g: a generator of its own, so that the other
// faults fall where they did.
func (s seqScenario) withSlowFetches(g *gen) seqScenario {
	if !g.chance(slowFetchShare) || len(s.Steps) == 0 || s.Twin != nil || s.handovers() > 0 ||
		slices.ContainsFunc(s.Steps, func(st step) bool { return st.Fault != nil && !st.Fault.slowFetchMixes() }) {
		return s
	}
	// The HPA's last metric: upstream evaluates its metrics one after the
	// other, each at the time its turn comes, kube-hpa all at once, so a
	// metric after the slow one would be evaluated the delay later by
	// upstream only (a pod's readiness or its CPU initialization period
	// seen across a boundary).
	metric := len(s.Metrics) - 1
	if !s.fetchedAlone(metric) {
		return s
	}
	from := g.intn(0, len(s.Steps)-1)
	steps := make([]step, len(s.Steps))
	for i, st := range s.Steps {
		steps[i] = st
		if i < from {
			continue
		}
		f := &fault{}
		if st.Fault != nil {
			*f = *st.Fault
		}
		f.SlowFetch = []int{metric}
		steps[i].Fault = f
	}
	s.Steps = steps
	return s
}

// slowFetchMixes tells whether a sequence with f in it may have slow
// fetches. Not with a Hang: kube-hpa waits for its budget where upstream
// gets the error at once, so its unspread next pass would come half a
// period after upstream's. Not with a change of the target that kube-hpa's
// scale watch may show late (a rollout, a person's scale, a re-creation, a
// lagging watch): kube-hpa may then decide from the old count, fetch, find
// its write conflicting and decide again from the new count, where
// upstream's GET showed the new count at once and needed no fetch (a
// target above its maximum, or at zero). The decision is the same, but the
// abandoned one's slow fetch makes kube-hpa's pass the delay longer and,
// unspread, every later pass the delay later than upstream's.
func (f fault) slowFetchMixes() bool {
	return len(f.Hang) == 0 && !f.Rollout && !f.Person && !f.Recreate && !f.Lag
}

// fetchedAlone tells whether metric i's fetch is its own: no other metric
// of the HPA reads the same answer of the fake (fakeMetrics.set).
func (s seqScenario) fetchedAlone(i int) bool {
	key := func(m metricSpec) string {
		if m.Type == "Resource" || m.Type == "ContainerResource" {
			return "resource/" + m.Name
		}
		return m.Type + "/" + m.Name
	}
	for k, m := range s.Metrics {
		if k != i && key(m) == key(s.Metrics[i]) {
			return false
		}
	}
	return true
}

// slowFetches counts the steps of s with a slow fetch.
func (s seqScenario) slowFetches() int {
	n := 0
	for _, st := range s.Steps {
		n += boolCount(st.Fault != nil && len(st.Fault.SlowFetch) > 0)
	}
	return n
}

// spreads tells whether kube-hpa runs with its reconciles spread, as
// shipped: in every sequence but those with slow fetches (see above).
func (s seqScenario) spreads() bool { return s.slowFetches() == 0 }

// slowSince tells whether the fetches of step k or of an earlier step were
// slow: the stamps a slow pass left may show at any later step.
func (s seqScenario) slowSince(k int) bool {
	return slices.ContainsFunc(s.Steps[:k+1], func(st step) bool { return st.Fault != nil && len(st.Fault.SlowFetch) > 0 })
}
