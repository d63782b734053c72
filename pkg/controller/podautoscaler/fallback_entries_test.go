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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// The status entries of the fallback: matched to the spec by metric, kept
// across passes that fetch nothing, and a first failure from the future.

// TestFallbackHistoryFollowsTheMetric: status entries are matched to spec
// metrics by name and selector, so reordering, adding or removing metrics
// keeps each metric's own failure history.
func TestFallbackHistoryFollowsTheMetric(t *testing.T) {
	selA := map[string]string{"queue": "a"}
	selB := map[string]string{"queue": "b"}
	old := testStart.Add(-200 * time.Second)
	recent := testStart.Add(-100 * time.Second)
	hpa := withStatusMetrics(
		// The spec as edited: new order, a new metric, one metric gone.
		newHPA(1, 20,
			withFallback(withSelector(externalAverage("queue", "10"), selB), 180, 9),
			withFallback(externalAverage("fresh", "10"), 180, 15),
			withFallback(withSelector(externalAverage("queue", "10"), selA), 180, 4),
		),
		// The status as the last pass wrote it, for the spec before the edit.
		persistedFailure("queue", &metav1.LabelSelector{MatchLabels: selA}, v2.FallbackStatusNormal, old),
		persistedFailure("removed", nil, v2.FallbackStatusFallback, old),
		persistedFailure("queue", &metav1.LabelSelector{MatchLabels: selB}, v2.FallbackStatusNormal, recent),
	)
	h := newHarness(t, hpa, fallbackOn)
	h.scales.setScale(5, 5, testSelector)
	h.metrics.SetExternal("queue", metricstest.ExternalAnswer{Err: errBoom})
	h.metrics.SetExternal("fresh", metricstest.ExternalAnswer{Err: errBoom})

	// queue{a} is due (200 s): 4 replicas, below the 5 current, while two
	// metrics are invalid: no scale-down.
	h.reconcileFails()
	h.assertUpdates()
	got := h.hpa(testHPAName).Status.CurrentMetrics
	if len(got) != 3 {
		t.Fatalf("currentMetrics = %+v, want one entry per spec metric", got)
	}
	type entry struct {
		name     string
		selector map[string]string
		status   v2.FallbackStatus
		first    time.Time
	}
	want := []entry{
		{"queue", selB, v2.FallbackStatusNormal, recent},
		{"fresh", nil, v2.FallbackStatusNormal, testStart},
		{"queue", selA, v2.FallbackStatusFallback, old},
	}
	for i, w := range want {
		e := got[i].External
		if e == nil {
			t.Errorf("entry %d = %+v, want an External entry", i, got[i])
			continue
		}
		var sel map[string]string
		if e.Metric.Selector != nil {
			sel = e.Metric.Selector.MatchLabels
		}
		if e.Metric.Name != w.name || !equalLabels(sel, w.selector) || e.FallbackStatus != w.status ||
			e.FirstFailureTime == nil || !e.FirstFailureTime.Time.Equal(w.first) {
			t.Errorf("entry %d = %s%v %s since %v, want %s%v %s since %v", i, e.Metric.Name, sel, e.FallbackStatus,
				e.FirstFailureTime, w.name, w.selector, w.status, w.first)
		}
	}
	if c := fallbackCondition(t, h.hpa(testHPAName)); c.Message != "external metrics using their fallback replica count: queue" {
		t.Errorf("ExternalMetricFallbackActive message = %q", c.Message)
	}
}

func equalLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFallbackHistoryAcrossPassesWithoutFetch: only a successful fetch ends
// a run of failures. A pass that asks no metric (the target outside
// [minReplicas, maxReplicas]) keeps each metric's failure history, and a
// pass paused at zero leaves no stale fallback condition.
func TestFallbackHistoryAcrossPassesWithoutFetch(t *testing.T) {
	first := testStart.Add(-100 * time.Second)
	t.Run("a pass bringing the target back into range keeps firstFailureTime", func(t *testing.T) {
		h := newHarness(t, withStatusMetrics(newHPA(1, 20, queueDepth()),
			persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, first)), noDownscaleWindow(fallbackOn))
		h.scales.setScale(25, 25, testSelector)
		h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
		h.mustReconcile()
		h.assertUpdates(20)
		if n := len(h.metrics.Requests()); n != 0 {
			t.Errorf("metrics fetched %d times, want none", n)
		}
		assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusNormal, first)

		h.scales.setScale(20, 20, testSelector)
		h.clock.SetTime(first.Add(180 * time.Second))
		h.mustReconcile()
		h.assertUpdates(20, 10)
		assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusFallback, first)
	})
	t.Run("a metric in fallback stays in fallback through a pass out of range", func(t *testing.T) {
		hpa := withConditions(withStatusMetrics(newHPA(1, 20, queueDepth()),
			persistedFailure("queue_depth", nil, v2.FallbackStatusFallback, first.Add(-time.Hour))),
			autoscalingv2.HorizontalPodAutoscalerCondition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionTrue,
				Reason: "FallbackActive", Message: "external metrics using their fallback replica count: queue_depth"})
		h := newHarness(t, hpa, noDownscaleWindow(fallbackOn))
		h.scales.setScale(25, 25, testSelector)
		h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
		h.mustReconcile()
		h.assertUpdates(20)
		assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusFallback, first.Add(-time.Hour))
		assertConditions(t, h.hpa(testHPAName), notScaledTo0, rescaled, fallbackActive)

		h.scales.setScale(20, 20, testSelector)
		h.clock.Step(15 * time.Second)
		h.mustReconcile()
		h.assertUpdates(20, 10)
		if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 0 {
			t.Errorf("activation events = %q, want none: the metric never left fallback", got)
		}
	})
	t.Run("below minReplicas: failing entries are kept, healthy ones dropped, the condition follows", func(t *testing.T) {
		healthy := v2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: &v2.ExternalMetricStatus{
			Metric:         v2.MetricIdentifier{Name: "backlog"},
			Current:        autoscalingv2.MetricValueStatus{AverageValue: milliQuantity(5000)},
			FallbackStatus: v2.FallbackStatusNormal,
		}}
		hpa := withConditions(withStatusMetrics(
			newHPA(3, 20, queueDepth(), withFallback(externalAverage("backlog", "10"), 180, 4), externalAverage("plain", "10")),
			persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, first), healthy,
			persistedFailure("plain", nil, v2.FallbackStatusNormal, first)),
			// Stale: no entry kept is in fallback.
			autoscalingv2.HorizontalPodAutoscalerCondition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionTrue, Reason: "FallbackActive"})
		h := newHarness(t, hpa, fallbackOn)
		h.scales.setScale(1, 1, testSelector)
		h.mustReconcile()
		h.assertUpdates(3)
		got := h.hpa(testHPAName)
		if len(got.Status.CurrentMetrics) != 1 {
			t.Fatalf("currentMetrics = %+v, want only queue_depth's failure", got.Status.CurrentMetrics)
		}
		assertFallbackStatus(t, got, "queue_depth", v2.FallbackStatusNormal, first)
		assertConditions(t, got, notScaledTo0, rescaled, noFallbackActive)
	})
	t.Run("paused at zero: a metric in fallback stays in it, without an event", func(t *testing.T) {
		hpa := withConditions(withStatusMetrics(newHPA(1, 20, queueDepth()),
			persistedFailure("queue_depth", nil, v2.FallbackStatusFallback, first)),
			autoscalingv2.HorizontalPodAutoscalerCondition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionTrue, Reason: "FallbackActive"})
		h := newHarness(t, hpa, fallbackOn)
		h.scales.setScale(0, 0, testSelector)
		h.mustReconcile()
		h.assertUpdates()
		got := h.hpa(testHPAName)
		assertConditions(t, got, gotScale, disabled, fallbackActive)
		assertFallbackStatus(t, got, "queue_depth", v2.FallbackStatusFallback, first)
		h.assertEvents()
	})
	t.Run("gate off, paused at zero: a stale fallback condition is removed", func(t *testing.T) {
		hpa := withConditions(withStatusMetrics(newHPA(1, 20, queueDepth()),
			persistedFailure("queue_depth", nil, v2.FallbackStatusFallback, first)),
			autoscalingv2.HorizontalPodAutoscalerCondition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionTrue, Reason: "FallbackActive"})
		h := newHarness(t, hpa, fallbackOff)
		h.scales.setScale(0, 0, testSelector)
		h.mustReconcile()
		got := h.hpa(testHPAName)
		assertConditions(t, got, gotScale, disabled)
		if len(got.Status.CurrentMetrics) != 0 {
			t.Errorf("currentMetrics = %+v, want none while paused", got.Status.CurrentMetrics)
		}
	})
	t.Run("gate off, out of range: no fallback state is carried", func(t *testing.T) {
		h := newHarness(t, withStatusMetrics(newHPA(1, 20, queueDepth()),
			persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, first)), fallbackOff)
		h.scales.setScale(25, 25, testSelector)
		h.mustReconcile()
		h.assertUpdates(20)
		if got := h.hpa(testHPAName).Status.CurrentMetrics; len(got) != 0 {
			t.Errorf("currentMetrics = %+v, want none", got)
		}
	})
}

// TestFallbackFirstFailureInTheFuture: a firstFailureTime ahead of this
// controller's clock (written by a replica whose clock ran ahead) must not
// put the fallback off beyond failureDurationSeconds from now.
func TestFallbackFirstFailureInTheFuture(t *testing.T) {
	h := newHarness(t, withStatusMetrics(newHPA(1, 20, queueDepth()),
		persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, testStart.Add(24*time.Hour))), fallbackOn)
	h.scales.setScale(5, 5, testSelector)
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
	h.reconcileFails()
	assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusNormal, testStart)
	h.clock.Step(180 * time.Second)
	h.mustReconcile()
	h.assertUpdates(10)
}
