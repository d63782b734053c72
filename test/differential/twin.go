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
	"slices"
)

// twin is a second HPA of a sequence, named twin, in both worlds. It scales
// a Deployment of its own ("twin"), whose pods carry a label of their own
// (app=twin), so that no pod is selected by both HPAs' targets (upstream
// sets AmbiguousSelector on such HPAs). It shares External metrics with
// the first HPA: the same names and selector, so that kube-hpa's shared
// fetch (metrics.NewSharedExternal) serves both from one fetch; its first
// External metric is the first HPA's, so that both have one slot
// (package cadence). The faults of a sequence stay on the first HPA.
type twin struct {
	// Min is spec.minReplicas; -1 leaves it unset.
	Min, Max int32
	// Shared are indexes of the first HPA's External metrics, its first
	// External metric first; the twin has them first, with the same
	// targets.
	Shared []int
	// Own are the twin's metrics of its own, after the shared ones. The
	// readings of Object and External ones are the steps' TwinValues, of
	// pod metrics those of the twin's pods (TwinPods).
	Own []metricSpec
	// Up and Down are spec.behavior; both nil leaves behavior unset.
	Up, Down *rules
	// Start is the twin's target's replica count when the HPAs are created.
	Start int32
}

// withTwin gives some of the sequences whose HPA has an External metric a
// twin, drawn from g: a generator of its own, so that the sequences are
// otherwise those of the same seed before twins existed.
func (s seqScenario) withTwin(g *gen) seqScenario {
	external := s.externalMetrics()
	if len(external) == 0 || !g.chance(0.65) {
		return s
	}
	t := &twin{Max: int32(pick(g, 1, 3, 5, 10, 20, g.intn(1, 30))), Shared: external[:1]}
	t.Min = min(int32(pick(g, -1, -1, 1, 2, 0, g.intn(1, 5))), t.Max)
	for _, i := range external[1:] {
		if g.chance(0.6) {
			t.Shared = append(t.Shared, i)
		}
	}
	for i := range pick(g, 0, 0, 1, 2) {
		t.Own = append(t.Own, g.twinMetricSpec(i))
	}
	if g.chance(0.6) {
		t.Up, t.Down = g.rules(true), g.rules(false)
	}
	t.Start = int32(pick(g, 0, 1, 2, 3, 5, 8, g.intn(0, 40)))
	s.Twin = t
	steps := make([]step, len(s.Steps))
	for i, st := range s.Steps {
		for k := range pick(g, 0, 1, 2, 3, 4) {
			st.TwinPods = append(st.TwinPods, g.twinPod(k))
		}
		for range t.Own {
			st.TwinValues = append(st.TwinValues, int64(g.intn(0, 5000)))
		}
		steps[i] = st
	}
	s.Steps = steps
	return s
}

// externalMetrics returns the indexes of the HPA's External metrics.
func (s seqScenario) externalMetrics() []int {
	var out []int
	for i, m := range s.Metrics {
		if m.Type == "External" {
			out = append(out, i)
		}
	}
	return out
}

// twinMetricSpec draws a metric of the twin's own: named t0, t1... where
// the first HPA's are m0, m1..., so that it shares none of theirs.
func (g *gen) twinMetricSpec(i int) metricSpec {
	m := g.metricSpec(i)
	if m.Type != "Resource" && m.Type != "ContainerResource" {
		m.Name = fmt.Sprintf("t%d", i)
	}
	return m
}

// twinPod draws a pod of the twin's target, named tp0, tp1...
func (g *gen) twinPod(i int) pod {
	p := g.healthyPod(i)
	if g.chance(0.25) {
		p = g.pod(i)
	}
	p.Name = fmt.Sprintf("tp%d", i)
	return p
}

// metrics is the twin's spec.metrics: the shared ones, then its own.
func (t *twin) metrics(s seqScenario) []metricSpec {
	out := make([]metricSpec, 0, len(t.Shared)+len(t.Own))
	for _, i := range t.Shared {
		out = append(out, s.Metrics[i])
	}
	return append(out, t.Own...)
}

// twinView is the twin as a sequence of its own: its spec, its pods, the
// readings and fetch errors of its metrics. Its HPA is built from it, and
// the allow-list judges the twin's differences by it, as it judges the
// first HPA's by the sequence.
func (s seqScenario) twinView() seqScenario {
	t := s.Twin
	v := seqScenario{Min: t.Min, Max: t.Max, Metrics: t.metrics(s), Up: t.Up, Down: t.Down, Start: t.Start, windowNudge: s.windowNudge}
	for _, st := range s.Steps {
		ts := step{Advance: st.Advance, Manual: -1, Pods: st.TwinPods}
		for k, i := range t.Shared {
			ts.Values = append(ts.Values, st.Values[i])
			if slices.Contains(st.Errs, i) {
				ts.Errs = append(ts.Errs, k)
			}
		}
		ts.Values = append(ts.Values, st.TwinValues...)
		for len(ts.Values) < len(v.Metrics) {
			ts.Values = append(ts.Values, 0)
		}
		v.Steps = append(v.Steps, ts)
	}
	return v
}

// withoutTwin is s with no twin, for the allow-list.
func (s seqScenario) withoutTwin() seqScenario {
	s.Twin = nil
	return s
}

// splitTwins returns the observations of the first HPA, without the
// twin's, and the twin's.
func splitTwins(obs []observation) (first, twins []observation) {
	first, twins = make([]observation, len(obs)), make([]observation, len(obs))
	for i, o := range obs {
		if o.Twin != nil {
			twins[i] = *o.Twin
		}
		o.Twin = nil
		first[i] = o
	}
	return first, twins
}

// classifyWithTwin classifies the runs of a sequence with a twin: each
// HPA's observations by its own scenario, so that an allow-list entry
// excuses a difference of the twin only where its condition holds for the
// twin. The twin's first difference that nothing excuses, or a misuse, is
// reported as the twin's.
func classifyWithTwin(s seqScenario, up, ours []observation) verdict {
	upFirst, upTwin := splitTwins(up)
	oursFirst, oursTwin := splitTwins(ours)
	v := classifySeq(s.withoutTwin(), upFirst, oursFirst)
	if v.diff != nil || v.misuse != "" {
		return v
	}
	tv := classifySeq(s.twinView(), upTwin, oursTwin)
	for _, a := range tv.by {
		if !slices.Contains(v.by, a) {
			v.by = append(v.by, a)
		}
		u, tu := v.uses[a], tv.uses[a]
		v.uses[a] = excuseUses{caused: u.caused + tu.caused, carried: u.carried + tu.carried}
	}
	if tv.diff != nil {
		fields := make([]string, len(tv.diff.Fields))
		for i, f := range tv.diff.Fields {
			fields[i] = "twin." + f
		}
		v.diff = &seqDiff{Step: tv.diff.Step, Fields: fields}
	}
	if tv.misuse != "" {
		v.misuse = "twin: " + tv.misuse
	}
	return v
}

// sharedWithTwin reports whether the twin shares the metric of index i.
func (s seqScenario) sharedWithTwin(i int) bool {
	return s.Twin != nil && slices.Contains(s.Twin.Shared, i)
}
