package differential

import "testing"

// TestRegressionFaultsMeetKubeHPA holds the fault rows of seqRegressions to
// what they are there to show: the faults each says meet kube-hpa (a
// conflict of its scale update, a fetch that hung until its budget) do,
// and the others had nothing to meet, so that a row that agrees with
// upstream agrees for its fault's sake.
func TestRegressionFaultsMeetKubeHPA(t *testing.T) {
	for _, tc := range seqRegressions {
		if tc.met == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			_, log := runWorld(t, tc.s, ourController)
			if got := log.tally.Fired; got != *tc.met {
				t.Errorf("faults that met kube-hpa = %+v, want %+v", got, *tc.met)
			}
		})
	}
}
