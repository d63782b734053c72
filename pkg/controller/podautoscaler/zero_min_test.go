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
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// TestMinRaisedOverOwnZero: raising minReplicas over a workload this
// controller scaled to zero brings it back to minReplicas, whether the
// metrics ask for nothing or cannot be read at all, with upstream's rescale
// reason where upstream has one.
func TestMinRaisedOverOwnZero(t *testing.T) {
	failing := map[string]metricstest.ExternalAnswer{"queue": {Err: errBoom}}
	stabilizedUp := &v2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	}
	failedExternalMetric := condFalse(autoscalingv2.ScalingActive, "FailedGetExternalMetric")
	cases := []zeroCase{
		{
			name: "every metric failing: scales to the new minimum and still reports the failure",
			gate: true, hpa: scaledToZeroHPA(2, 6, externalValue("queue", "10")),
			external:    failing,
			wantErr:     "failed to compute desired number of replicas based on listed metrics for Deployment/default/web: invalid metrics (1 invalid out of 1)",
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds: []wantCond{notScaledTo0, rescaled, failedExternalMetric, withinRange},
			wantEvents: []string{
				"Warning FailedGetExternalMetric ~adapter unavailable",
				"Warning FailedComputeMetricsReplicas ~invalid metrics (1 invalid out of 1)",
				"Normal SuccessfulRescale New size: 2; reason: Current number of replicas below Spec.MinReplicas",
			},
			wantReconcil: "scale_up/internal",
		},
		{
			name: "every metric failing with minReplicas 0: stays at zero",
			gate: true, hpa: scaledToZeroHPA(0, 6, externalValue("queue", "10")),
			external:    failing,
			wantErr:     "invalid metrics (1 invalid out of 1)",
			wantDesired: 0,
			wantConds:   []wantCond{scaledToZero, gotScale, failedExternalMetric},
			wantEvents: []string{
				"Warning FailedGetExternalMetric ~adapter unavailable",
				"Warning FailedComputeMetricsReplicas ~invalid metrics (1 invalid out of 1)",
			},
		},
		{
			name: "every metric failing on a zero a person set: stays paused",
			gate: true, hpa: newHPA(2, 6, externalValue("queue", "10")),
			external:    failing,
			wantDesired: 0, wantConds: []wantCond{gotScale, disabled}, wantNoFetch: true,
		},
		{
			name: "no demand under behavior: the raise is the controller's, with upstream's reason",
			gate: true, hpa: withBehavior(scaledToZeroHPA(2, 6, externalValue("queue", "10")), stabilizedUp),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(0)},
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 2; reason: Current number of replicas below Spec.MinReplicas"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

// TestScaledToZeroClearedAboveZero: ScaledToZero=True is cleared as soon
// as the target is seen above zero, without a rescale, so that a zero a
// person sets later is a pause and not taken for this controller's own.
func TestScaledToZeroClearedAboveZero(t *testing.T) {
	h := newHarness(t, scaledToZeroHPA(0, 10, externalAverage("queue", "10")),
		noDownscaleWindow(withGates(features.HPAScaleToZero, true)))
	h.metrics.SetExternal("queue", extOK(30000))

	// A person scales the HPA's zero up to 3; the metric agrees with 3.
	h.scales.setScale(3, 3, testSelector)
	h.mustReconcile()
	h.assertUpdates()
	hpa := h.hpa(testHPAName)
	assertConditions(t, hpa, notScaledTo0, condTrue(autoscalingv2.AbleToScale, "ReadyForNewScale"), validMetric, withinRange)
	if c := conditionOf(t, hpa, v2.ScaledToZero); !c.LastTransitionTime.Time.Equal(testStart) {
		t.Errorf("ScaledToZero flipped at %v, want %v", c.LastTransitionTime, testStart)
	}

	// The person then sets it to zero: a pause, not the HPA's zero, even
	// though the metric asks for replicas.
	h.scales.setScale(0, 0, testSelector)
	h.metrics.ResetRequests()
	h.clock.Step(15 * time.Second)
	h.mustReconcile()
	h.assertUpdates()
	assertConditions(t, h.hpa(testHPAName), notScaledTo0, gotScale, disabled, withinRange)
	if n := len(h.metrics.Requests()); n != 0 {
		t.Errorf("metrics fetched %d times while paused, want none", n)
	}
}

// TestScaledToZeroKeptWhileAtZero: at zero, and with the gate off, the
// condition is left alone by the step that clears it.
func TestScaledToZeroKeptWhileAtZero(t *testing.T) {
	for _, tc := range []struct {
		name      string
		gate      bool
		spec      int32
		wantConds []wantCond
	}{
		{name: "at zero the condition stays True", gate: true, spec: 0,
			wantConds: []wantCond{scaledToZero, condTrue(autoscalingv2.AbleToScale, "ReadyForNewScale"), validMetric, withinRange}},
		{name: "gate off: a target above zero leaves the condition to the rescale step", gate: false, spec: 3,
			wantConds: []wantCond{scaledToZero, condTrue(autoscalingv2.AbleToScale, "ReadyForNewScale"), validMetric, withinRange}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, scaledToZeroHPA(0, 10, externalAverage("queue", "10")),
				noDownscaleWindow(withGates(features.HPAScaleToZero, tc.gate)))
			h.metrics.SetExternal("queue", extOK(int64(tc.spec)*10000))
			h.scales.setScale(tc.spec, tc.spec, testSelector)
			h.mustReconcile()
			h.assertUpdates()
			assertConditions(t, h.hpa(testHPAName), tc.wantConds...)
		})
	}
}
