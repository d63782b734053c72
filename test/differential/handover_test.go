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
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// TestHandoversAreDrawnApart holds the handovers' draw to what handover.go
// says: they leave every other fault of a sequence where it was, fall
// neither at a step whose watch lags nor right before a step whose
// target's watch lags, come in a share of the sequences, and are
// upstream's too.
func TestHandoversAreDrawnApart(t *testing.T) {
	const n = 2000
	with := 0
	for i := range n {
		before := newSequenceGen(1, 1_000_000_000+i).seqScenario().withTwin(newGen(1, 3_000_000_000+i)).withFaults(newGen(1, 2_000_000_000+i))
		// The slow fetches come after the handovers (slowfetch.go).
		s := before.withHandovers(newGen(1, 5_000_000_000+i))
		with += boolCount(s.handovers() > 0)
		for k, st := range s.Steps {
			was := before.Steps[k].Fault
			if st.Fault == nil || !st.Fault.Handover {
				if !equality.Semantic.DeepEqual(st.Fault, was) {
					t.Fatalf("case %d step %d: fault %+v, was %+v", i, k, st.Fault, was)
				}
				continue
			}
			other := *st.Fault
			other.Handover = false
			if was == nil && !other.empty() || was != nil && !equality.Semantic.DeepEqual(&other, was) {
				t.Fatalf("case %d step %d: a handover changed the step's other faults: %+v, was %+v", i, k, other, was)
			}
			if st.Fault.Lag || st.Fault.HPALag || k+1 < len(s.Steps) && s.Steps[k+1].Fault != nil && s.Steps[k+1].Fault.Lag {
				t.Errorf("case %d step %d: a handover at or right before a lagging watch", i, k)
			}
			if up := s.forUpstream(faultLog{}).Steps[k].Fault; up == nil || !up.Handover {
				t.Errorf("case %d step %d: upstream's world has no handover", i, k)
			}
		}
	}
	if share := float64(with) / n; share < handoverShare/2 || share > handoverShare*1.5 {
		t.Errorf("%d of %d sequences have handovers, want about %.0f%%", with, n, 100*handoverShare)
	}
}
