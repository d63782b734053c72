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
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// TestSlowFetchesAreDrawnApart holds the slow fetches' draw to what
// slowfetch.go says: they leave every other fault of a sequence where it
// was, run from a step to the sequence's end on the last metric, whose
// fetch is its own, come in a share of the sequences, never with a twin, a
// handover or a fault that does not mix, and are upstream's too.
func TestSlowFetchesAreDrawnApart(t *testing.T) {
	const n = 4000
	with := 0
	for i := range n {
		before := newSequenceGen(1, 1_000_000_000+i).seqScenario().withTwin(newGen(1, 3_000_000_000+i)).withFaults(newGen(1, 2_000_000_000+i)).
			withHandovers(newGen(1, 5_000_000_000+i))
		s := generatedSeq(1, i)
		if s.slowFetches() == 0 {
			if !reflect.DeepEqual(s, before) {
				t.Fatalf("case %d: a sequence without slow fetches changed", i)
			}
			continue
		}
		with++
		if s.Twin != nil || s.handovers() > 0 || s.spreads() {
			t.Errorf("case %d: slow fetches with a twin or a handover, or kube-hpa spread", i)
		}
		from := -1
		for k, st := range s.Steps {
			was := before.Steps[k].Fault
			if st.Fault == nil || len(st.Fault.SlowFetch) == 0 {
				if from >= 0 {
					t.Fatalf("case %d step %d: the slow fetches stop before the sequence's end", i, k)
				}
				if !equality.Semantic.DeepEqual(st.Fault, was) {
					t.Fatalf("case %d step %d: fault %+v, was %+v", i, k, st.Fault, was)
				}
				continue
			}
			if from < 0 {
				from = k
			}
			if m := st.Fault.SlowFetch; len(m) != 1 || m[0] != len(s.Metrics)-1 || !s.fetchedAlone(m[0]) {
				t.Errorf("case %d step %d: slow fetches of %v: want the last metric, fetched alone", i, k, m)
			}
			if !st.Fault.slowFetchMixes() {
				t.Errorf("case %d step %d: a slow fetch with a fault that does not mix: %+v", i, k, *st.Fault)
			}
			other := *st.Fault
			other.SlowFetch = nil
			if was == nil && !other.empty() || was != nil && !equality.Semantic.DeepEqual(&other, was) {
				t.Fatalf("case %d step %d: a slow fetch changed the step's other faults: %+v, was %+v", i, k, other, was)
			}
			if up := s.forUpstream(faultLog{}).Steps[k].Fault; up == nil || !equality.Semantic.DeepEqual(up.SlowFetch, st.Fault.SlowFetch) {
				t.Errorf("case %d step %d: upstream's world has no slow fetch", i, k)
			}
		}
	}
	// Among all sequences; about half of them are eligible (no twin, no
	// handover, no Hang).
	if share := float64(with) / n; share < slowFetchShare/6 || share > slowFetchShare*1.5 {
		t.Errorf("%d of %d sequences have slow fetches, want some share below %.1f%%", with, n, 100*slowFetchShare)
	}
}

// TestSlowFetchesDelayBothWorlds runs a sequence whose fetches are slow from
// its first step: both worlds must answer them after the delay, as many
// times, and each must stamp its rescale when its fetch answered: exactly
// slowFetchDelay after the same sequence without the fault stamps it.
// Without the delay in one world, that world's stamp is the instant one.
func TestSlowFetchesDelayBothWorlds(t *testing.T) {
	slow := &fault{SlowFetch: []int{0}}
	sequence := func(f *fault) seqScenario {
		return seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 1, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}, Fault: f},
			{Advance: 2, Manual: -1, Values: []int64{3000}, Fault: f},
		}}
	}
	s := sequence(slow)
	ours, log := runWorld(t, s, ourController)
	up, upLog := runWorld(t, s.forUpstream(log), upstreamController)
	if log.tally.SlowAnswers == 0 || log.tally.SlowAnswers != upLog.tally.SlowAnswers {
		t.Errorf("slow answers: kube-hpa %d, upstream %d; want as many, and some", log.tally.SlowAnswers, upLog.tally.SlowAnswers)
	}
	instant, _ := runWorld(t, sequence(nil), ourController)
	want := instant[0].Status.LastScaleTime
	for name, obs := range map[string][]observation{"upstream": up, "kube-hpa": ours} {
		if obs[0].Scale != 3 {
			t.Fatalf("%s's replicas after the first step: %d, want 3", name, obs[0].Scale)
		}
		if got := obs[0].Status.LastScaleTime; got == nil || want == nil || got.Sub(want.Time) != slowFetchDelay {
			t.Errorf("%s's lastScaleTime: %v, want %s after the instant fetch's %v", name, got, slowFetchDelay, want)
		}
	}
}
