package differential

import (
	"slices"
	"testing"
)

// seqRegressions holds sequences pasted from failing runs, with the
// allow-list classes that must accept their differences (none when the two
// controllers must agree). An entry whose class is fixed away fails here, so
// the row moves to wantClasses: nil with its allow-list entry removed.
var seqRegressions = []struct {
	name        string
	s           seqScenario
	wantClasses []string
}{
	{
		name: "a recommendation exactly the legacy window old still holds the scale upstream",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 5, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{5000}},
			{Advance: 20, Manual: -1, Values: []int64{1000}},
		}},
		wantClasses: []string{"FOUND: legacy downscale stabilization (no spec.behavior) at exactly the window's age"},
	},
	{
		name: "a Percent scale-down policy of 80% from 20 replicas allows 3 upstream",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0, Policies: []policy{{Type: "Percent", Value: 80, Period: 60}}}, Start: 20, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{1000}},
		}},
		wantClasses: []string{"a Percent policy limits a scale"},
	},
	{
		name: "steady load keeps the replicas on both",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 3, Steps: []step{
			{Advance: 4, Manual: -1, Values: []int64{3000}},
			{Advance: 30, Manual: -1, Values: []int64{3100}},
		}},
	},
}

func TestReconcileRegressions(t *testing.T) {
	for _, tc := range seqRegressions {
		t.Run(tc.name, func(t *testing.T) {
			run := func(s seqScenario) ([]observation, []observation) {
				return runIn(t, s, upstreamController), runIn(t, s, ourController)
			}
			up, ours := run(tc.s)
			by, d := classifySeq(tc.s, up, ours, run)
			if d != nil {
				t.Fatalf("divergence after step %d (%v):\n  upstream: %s\n  kube-hpa: %s", d.Step, d.Fields, up[d.Step], ours[d.Step])
			}
			var got []string
			for _, a := range by {
				got = append(got, a.Class)
			}
			if !slices.Equal(got, tc.wantClasses) {
				t.Errorf("allowed by %q, want %q", got, tc.wantClasses)
			}
		})
	}
}
