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

package behavior

import (
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// TestCheckpointRestoresTheHistory pins that a decision abandoned after a
// checkpoint leaves no trace in what later decisions are stabilized and
// rate-limited against, and that a checkpoint without a restore changes
// nothing.
func TestCheckpointRestoresTheHistory(t *testing.T) {
	const key = "default/web"
	for _, tc := range []struct {
		name    string
		restore bool
		// want is where a recommendation of 1 at 8 replicas is stabilized
		// after the abandoned (or kept) recommendation of 8.
		want int32
	}{
		{name: "a restored checkpoint forgets the recommendation made after it", restore: true, want: 5},
		{name: "an unrestored checkpoint keeps the recommendation made after it", restore: false, want: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Unix(1_000_000, 0))
			s := NewStore(Options{Clock: clk, DownscaleStabilizationWindow: 5 * time.Minute})
			s.RecordInitial(key, 5, time.Time{})
			in := Input{Key: key, Behavior: defaults(), CurrentReplicas: 5, MinReplicas: 1, MaxReplicas: 10}

			restore := s.Checkpoint(key)
			in.Recommendation = 8
			s.Normalize(in)
			s.RecordScale(key, in.Behavior, 5, 8, time.Time{})
			if tc.restore {
				restore()
			}

			clk.Step(15 * time.Second)
			in.CurrentReplicas, in.Recommendation = 8, 1
			// Without the abandoned 8, the highest recommendation of the
			// scale-down window is the initial 5.
			got := s.Normalize(in).Stabilized
			if got != tc.want {
				t.Errorf("stabilized = %d, want %d", got, tc.want)
			}
		})
	}
}
