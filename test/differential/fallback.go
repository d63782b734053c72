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

// fallbackSpec is the KEP-5679 fallback of one External metric, in short.
// Only the intree build (-tags intree, against hack/intree's patched
// k8s.io/api) can put it on a native HPA (fallback_native.go).
type fallbackSpec struct {
	// Duration is failureDurationSeconds, always set, as the API server
	// stores it after defaulting. It is a whole number of periods: a
	// deadline between two passes wakes both controllers, and their
	// queues differ after it (docs/in-tree.md).
	Duration int64
	Replicas int32
}

// fallbackSeq is a sequence for the two implementations of KEP-5679 (the
// intree build): the oracle's HPA and steps, without its faults or twin,
// where External metrics carry a fallback and fail in runs long enough to
// cross their failure duration and to recover from it. Some HPAs allow
// zero replicas, so the fallback meets KEP-2021's zero-scaling too.
func (g *gen) fallbackSeq() seqScenario {
	s := g.seqScenario()
	if !s.hasExternal() {
		s.Metrics[len(s.Metrics)-1] = metricSpec{Type: "External", Target: pick(g, "Value", "AverageValue"), Name: "ext", Value: g.targetValue()}
	}
	if g.chance(0.3) {
		s.Min = 0
	}
	failing := map[int]bool{}
	for i := range s.Metrics {
		if s.Metrics[i].Type != "External" || g.chance(0.15) {
			continue
		}
		s.Metrics[i].Fallback = &fallbackSpec{
			Duration: int64(pick(g, 180, 180, 240, 300, 600, 15*g.intn(12, 60))),
			Replicas: int32(pick(g, 1, 2, 5, int(s.Max), int(s.Max)+3, g.intn(1, 40))),
		}
		failing[i] = g.chance(0.5)
	}
	for k := range s.Steps {
		st := &s.Steps[k]
		// Runs of failure: each metric with a fallback keeps its state
		// from the step before most of the time, so that failures last
		// from one period to many failure durations.
		var errs []int
		for _, i := range st.Errs {
			if s.Metrics[i].Fallback == nil {
				errs = append(errs, i)
			}
		}
		for i := range s.Metrics {
			if s.Metrics[i].Fallback == nil {
				continue
			}
			if g.chance(0.3) {
				failing[i] = !failing[i]
			}
			if failing[i] {
				errs = append(errs, i)
			}
		}
		st.Errs = errs
		if g.chance(0.5) {
			st.Advance = pick(g, 4, 8, 12, 13, 20, 40, g.intn(1, 60))
		}
	}
	return s
}

func (s seqScenario) hasExternal() bool {
	for _, m := range s.Metrics {
		if m.Type == "External" {
			return true
		}
	}
	return false
}

// generatedFallbackSeq is the fallback sequence of index i of a run seeded
// with seed.
func generatedFallbackSeq(seed int64, i int) seqScenario {
	return newGen(seed, 4_000_000_000+i).fallbackSeq()
}
