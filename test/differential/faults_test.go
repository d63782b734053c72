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
