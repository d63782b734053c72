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
	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// TestFallbackGateOff: with HPAExternalMetricFallback off the controller
// behaves as upstream: the fallback is ignored, a failing metric is
// invalid, and no fallback status or condition is written (stale ones from
// an earlier run with the gate on are dropped).
func TestFallbackGateOff(t *testing.T) {
	cases := []struct {
		name string
		hpa  *v2.HorizontalPodAutoscaler
	}{
		{name: "a fresh HPA", hpa: newHPA(1, 20, queueDepth())},
		{
			name: "an HPA whose status says the metric was in fallback",
			hpa: withConditions(
				withStatusMetrics(newHPA(1, 20, queueDepth()), persistedFailure("queue_depth", nil, v2.FallbackStatusFallback, testStart.Add(-time.Hour))),
				autoscalingv2.HorizontalPodAutoscalerCondition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionTrue, Reason: "FallbackActive"}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.hpa, fallbackOff)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
			for _, at := range []time.Duration{0, 200 * time.Second} {
				h.clock.SetTime(testStart.Add(at))
				h.reconcileFails()
				h.assertUpdates()
				hpa := h.hpa(testHPAName)
				assertConditions(t, hpa, gotScale, failedExternal)
				for _, m := range hpa.Status.CurrentMetrics {
					if m.External != nil && (m.External.FallbackStatus != "" || m.External.FirstFailureTime != nil) {
						t.Errorf("at +%v: status entry %+v carries fallback fields", at, m.External)
					}
				}
				if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 0 {
					t.Errorf("activation events = %q", got)
				}
			}

			// A success writes the upstream status entry, without fallbackStatus.
			h.metrics.SetExternal("queue_depth", extOK(50000))
			h.clock.SetTime(testStart.Add(215 * time.Second))
			h.mustReconcile()
			s := externalStatusOf(t, h.hpa(testHPAName), "queue_depth")
			if s.FallbackStatus != "" || s.FirstFailureTime != nil {
				t.Errorf("status entry %+v carries fallback fields", s)
			}
			if hasCondition(h.hpa(testHPAName), v2.ExternalMetricFallbackActive) {
				t.Error("ExternalMetricFallbackActive present with the gate off")
			}
			if got := h.eventsWithReason("ExternalMetricFallbackDeactivated"); len(got) != 0 {
				t.Errorf("deactivation events = %q", got)
			}
		})
	}
}

// TestFallbackNotConfigured: an External metric without a fallback, with
// the gate on, fails as upstream and gets no fallback state.
func TestFallbackNotConfigured(t *testing.T) {
	h := newHarness(t, newHPA(1, 20, externalAverage("queue_depth", "10")), fallbackOn)
	h.scales.setScale(5, 5, testSelector)
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
	h.reconcileFails()
	h.clock.Step(time.Hour)
	h.reconcileFails()
	h.assertUpdates()
	hpa := h.hpa(testHPAName)
	assertConditions(t, hpa, gotScale, failedExternal)
	for _, m := range hpa.Status.CurrentMetrics {
		if m.External != nil && (m.External.FallbackStatus != "" || m.External.FirstFailureTime != nil) {
			t.Errorf("status entry %+v carries fallback fields", m.External)
		}
	}
}
