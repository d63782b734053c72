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

	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// TestFallbackEventsInUpstreamOrder: in a pass that computes no count, the
// fallback's transition (from the status written) comes before the
// failure to compute, as upstream records them: status first, then
// FailedComputeMetricsReplicas.
func TestFallbackEventsInUpstreamOrder(t *testing.T) {
	h := newHarness(t, newHPA(1, 20, queueDepth(), cpuUtilization(50)), fallbackOn)
	for _, step := range threeReplicas(cpuUsage(50, 50, 50)) {
		step(h)
	}
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
	for _, at := range []time.Duration{0, 180 * time.Second} {
		h.clock.SetTime(testStart.Add(at))
		_ = h.reconcile(testHPAName)
	}
	if c := fallbackCondition(t, h.hpa(testHPAName)); c.Status != corev1.ConditionTrue {
		t.Fatalf("ExternalMetricFallbackActive = %+v, want True", c)
	}
	h.events()

	// The External metric recovers, low, while CPU fails: an invalid
	// metric keeps the pass from scaling down, so it computes no count,
	// writes the recovered metric and ends the fallback.
	h.clock.SetTime(testStart.Add(195 * time.Second))
	h.metrics.SetExternal("queue_depth", extOK(1))
	cpuFails(errBoom)(h)
	if err := h.reconcile(testHPAName); err == nil {
		t.Fatal("reconcile succeeded, want the failure to compute a count")
	}
	h.assertEvents(
		"Warning FailedGetResourceMetric ~adapter unavailable",
		"Normal ExternalMetricFallbackDeactivated External metric 'queue_depth' recovered, fallback deactivated",
		"Warning FailedComputeMetricsReplicas ~invalid metrics (1 invalid out of 2)",
	)
}

// The series of External metrics in fallback exists only for an HPA that
// has a fallback: any other one can only ever read 0, and at 10,000 HPAs
// those series cost megabytes.
func TestFallbackSeriesOnlyForHPAsWithAFallback(t *testing.T) {
	cases := []struct {
		name       string
		metric     v2.MetricSpec
		wantSeries bool
	}{
		{"an External metric with a fallback has the series", queueDepth(), true},
		{"an External metric without a fallback has none", externalAverage("queue_depth", "10"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 20, tc.metric), fallbackOn)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
			h.reconcileFails()
			if n, ok := h.monitor.fallbackGauge(testHPAName); ok != tc.wantSeries || n != 0 {
				t.Errorf("series present %v at %d, want present %v at 0", ok, n, tc.wantSeries)
			}
		})
	}
}
