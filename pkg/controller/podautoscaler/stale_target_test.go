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

package podautoscaler

import (
	"slices"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// TestChangedTargetIsDecidedAgain pins the first safety rule: a decision is
// only written over the state of the target it was made from. A person's
// change between the pass's read and its update makes the update conflict,
// and the pass then decides on the person's count, as a pass that had read
// it would have; the decision made before leaves no write, event or
// recommendation behind.
func TestChangedTargetIsDecidedAgain(t *testing.T) {
	for _, tc := range []struct {
		name string
		// person is the spec.replicas a person sets between the pass's read
		// and its update.
		person      int32
		wantDesired int32
		wantConds   []wantCond
		wantEvents  []string
	}{
		{
			name:        "a pause to zero stands: the pass finds the target paused and scales nothing",
			person:      0,
			wantDesired: 0,
			wantConds:   []wantCond{gotScale, disabled},
		},
		{
			name:   "a scale-up stands: the fresh decision is stabilized at the person's count, not the 6 decided from 3",
			person: 8,
			// With the legacy 5 minute scale-down window, the first pass over
			// a target at 8 keeps 8: a scale to the 6 decided from 3 would
			// have undone the person's scale.
			wantDesired: 8,
			wantConds:   []wantCond{condTrue(autoscalingv2.AbleToScale, "ScaleDownStabilized"), validMetric, withinRange},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
			for _, step := range threeReplicas(cpuUsage(100, 100, 100)) {
				step(h)
			}
			versioned(func(v *versionedScales) {
				v.concurrentWrites, v.concurrentReplicas = 1, ptr.To(tc.person)
			})(h)

			if err := h.reconcile(testHPAName); err != nil {
				t.Fatalf("reconcile: %v", err)
			}
			h.assertUpdates()
			if got := h.scales.replicas(); got != tc.person {
				t.Errorf("target replicas = %d, want the person's %d", got, tc.person)
			}
			hpa := h.hpa(testHPAName)
			if hpa.Status.CurrentReplicas != tc.person || hpa.Status.DesiredReplicas != tc.wantDesired {
				t.Errorf("status current/desired = %d/%d, want %d/%d", hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas, tc.person, tc.wantDesired)
			}
			assertConditions(t, hpa, tc.wantConds...)
			h.assertEvents(tc.wantEvents...)
			if got := h.monitor.reconciliations; len(got) != 1 || got[0] != "none/none" {
				t.Errorf("reconciliations = %v, want one pass that scaled nothing", got)
			}
		})
	}
}

// TestStatusSurvivesAnotherWriter pins the second safety rule: a status
// write that loses a conflict to another writer is recorded again over the
// latest status, so that what the pass did (here the HPA's own scale to
// zero, recorded before the zero is written) is never lost; and one that
// keeps losing is an error and a FailedUpdateStatus event, never a silent
// loss, and then no zero is written without its record.
// otherWritersCondition is a condition the controller does not own.
var otherWritersCondition = autoscalingv2.HorizontalPodAutoscalerCondition{Type: "ExampleOtherWriter", Status: corev1.ConditionTrue, Reason: "Set"}

func TestStatusSurvivesAnotherWriter(t *testing.T) {
	for _, tc := range []struct {
		name      string
		conflicts int
		wantErr   string
		wantZero  bool
		wantReads int
	}{
		{name: "one conflict: recorded over the latest status, ScaledToZero kept", conflicts: 1, wantZero: true, wantReads: 1},
		{name: "conflicts until the last attempt: still written", conflicts: statusAttempts - 1, wantZero: true, wantReads: statusAttempts - 1},
		{name: "conflicts past the bound: an error and an event, and no zero without its record", conflicts: statusAttempts, wantErr: "failed to update status", wantReads: statusAttempts - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(0, 6, objectValue("qps", "20")), noDownscaleWindow(withGates(features.HPAScaleToZero, true)))
			h.scales.setScale(5, 5, testSelector)
			h.addPods(5, 100)
			h.metrics.SetObject("qps", objOK(0))
			h.source.statusConflicts = tc.conflicts
			// The other writer changes a status field the pass does not own,
			// which must survive the pass's edits.
			h.source.concurrentStatus = func(st *v2.HorizontalPodAutoscalerStatus) {
				st.Conditions = append(st.Conditions, otherWritersCondition)
			}

			err := h.reconcile(testHPAName)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("reconcile: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("reconcile error = %v, want one containing %q", err, tc.wantErr)
			}
			if tc.wantZero {
				h.assertUpdates(0)
			} else {
				h.assertUpdates()
			}
			if h.source.latestReads != tc.wantReads {
				t.Errorf("HPA read again %d times, want %d", h.source.latestReads, tc.wantReads)
			}
			hpa := h.hpa(testHPAName)
			if got := conditionIsTrue(hpa, v2.ScaledToZero); got != tc.wantZero {
				t.Errorf("ScaledToZero stored = %v, want %v; conditions %+v", got, tc.wantZero, hpa.Status.Conditions)
			}
			events := strings.Join(h.events(), "\n")
			if failed := strings.Contains(events, "FailedUpdateStatus"); failed != (tc.wantErr != "") {
				t.Errorf("events %q: FailedUpdateStatus reported = %v, want %v", events, failed, tc.wantErr != "")
			}
			if tc.wantZero && !slices.ContainsFunc(hpa.Status.Conditions, func(c autoscalingv2.HorizontalPodAutoscalerCondition) bool {
				return c.Type == otherWritersCondition.Type
			}) {
				t.Errorf("the other writer's condition was lost: %+v", hpa.Status.Conditions)
			}
		})
	}
}
