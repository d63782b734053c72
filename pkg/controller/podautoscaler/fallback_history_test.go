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
	"math"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/fallback"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// earlyExit is a kind of pass that stops before asking any metric, and how
// to undo it.
type earlyExit struct {
	name         string
	exit, repair func(h *harness)
}

func earlyExits() []earlyExit {
	scale := func(spec int32, selector string) func(h *harness) {
		return func(h *harness) { h.scales.setScale(spec, spec, selector) }
	}
	editSpec := func(edit func(*v2.HorizontalPodAutoscaler)) func(h *harness) {
		return func(h *harness) {
			hpa := h.hpa(testHPAName)
			edit(hpa)
			h.source.set(hpa)
		}
	}
	return []earlyExit{
		{name: "a scale without a selector", exit: scale(5, ""), repair: scale(5, testSelector)},
		{
			name: "a transient AmbiguousSelector",
			exit: func(h *harness) {
				addOtherHPA(h, testNamespace, "web-canary", testTarget, 1, 20, cpuUtilization(50))
				reconcileOther(h, testNamespace, "web-canary")
			},
			repair: func(h *harness) {
				other, _, _ := h.source.Get(testNamespace, "web-canary")
				h.source.delete(testNamespace, "web-canary")
				h.c.onDelete(0, other)
			},
		},
		{name: "a target paused at zero", exit: scale(0, testSelector), repair: scale(5, testSelector)},
		{name: "a target above maxReplicas", exit: scale(25, testSelector), repair: scale(5, testSelector)},
		{
			name:   "an invalid stored spec",
			exit:   editSpec(func(hpa *v2.HorizontalPodAutoscaler) { hpa.Spec.MinReplicas = ptr.To[int32](30) }),
			repair: editSpec(func(hpa *v2.HorizontalPodAutoscaler) { hpa.Spec.MinReplicas = ptr.To[int32](1) }),
		},
	}
}

// TestFallbackHistorySurvivesEarlyExits: a pass that stops before the
// metrics (selector trouble, paused at zero, out of range, invalid spec)
// carries each metric's failure history over unchanged, so that a metric
// in fallback stays in it without a second activation, and a run of
// failures keeps its first failure's time.
func TestFallbackHistorySurvivesEarlyExits(t *testing.T) {
	longAgo := testStart.Add(-time.Hour)
	recent := testStart.Add(-100 * time.Second)
	for _, exit := range earlyExits() {
		t.Run(exit.name+": a metric in fallback stays in it", func(t *testing.T) {
			hpa := withConditions(withStatusMetrics(newHPA(1, 20, queueDepth()),
				persistedFailure("queue_depth", nil, v2.FallbackStatusFallback, longAgo)),
				autoscalingv2.HorizontalPodAutoscalerCondition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionTrue,
					Reason: "FallbackActive", Message: "external metrics using their fallback replica count: queue_depth"})
			h := newHarness(t, hpa, noDownscaleWindow(fallbackOn))
			h.addPods(5, 100)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})

			exit.exit(h)
			_ = h.reconcile(testHPAName)
			got := h.hpa(testHPAName)
			assertFallbackStatus(t, got, "queue_depth", v2.FallbackStatusFallback, longAgo)
			if c := fallbackCondition(t, got); c.Status != corev1.ConditionTrue {
				t.Errorf("ExternalMetricFallbackActive = %+v, want True", c)
			}
			if got := append(h.eventsWithReason(fallback.EventActivated), h.eventsWithReason(fallback.EventDeactivated)...); len(got) != 0 {
				t.Errorf("fallback events = %q, want none", got)
			}

			exit.repair(h)
			h.resetUpdates()
			h.clock.Step(15 * time.Second)
			h.mustReconcile()
			h.assertUpdates(10)
			assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusFallback, longAgo)
			if got := h.eventsWithReason(fallback.EventActivated); len(got) != 0 {
				t.Errorf("activation events = %q, want none: the metric never left fallback", got)
			}
		})
		t.Run(exit.name+": a run of failures keeps its first failure", func(t *testing.T) {
			h := newHarness(t, withStatusMetrics(newHPA(1, 20, queueDepth()),
				persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, recent)), noDownscaleWindow(fallbackOn))
			h.addPods(5, 100)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})

			exit.exit(h)
			_ = h.reconcile(testHPAName)
			assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusNormal, recent)

			exit.repair(h)
			h.resetUpdates()
			h.clock.SetTime(recent.Add(180 * time.Second))
			h.mustReconcile()
			h.assertUpdates(10)
			assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusFallback, recent)
			if got := h.eventsWithReason(fallback.EventActivated); len(got) != 1 || got[0] != activatedQueueDepth {
				t.Errorf("activation events = %q, want one", got)
			}
		})
	}
}

// TestFallbackHugeFailureDuration: a failureDurationSeconds beyond what a
// Duration holds (stored without validation) never makes the fallback due,
// rather than wrapping to a negative duration that fires at once.
func TestFallbackHugeFailureDuration(t *testing.T) {
	for _, seconds := range []int64{10000000000, math.MaxInt64} {
		h := newHarness(t, newHPA(1, 20, withFallback(externalAverage("queue_depth", "10"), seconds, 10)), fallbackOn)
		h.scales.setScale(5, 5, testSelector)
		h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
		h.reconcileFails()
		h.clock.Step(24 * time.Hour)
		h.reconcileFails()
		h.assertUpdates()
		assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusNormal, testStart)
		if got := h.eventsWithReason(fallback.EventActivated); len(got) != 0 {
			t.Errorf("failureDurationSeconds %d: activation events = %q, want none", seconds, got)
		}
	}
}

// TestFallbackCountsOnlyProviderFailures: a metric the provider answers but
// that cannot be used stays invalid as upstream, says why, and ends a run of
// provider failures; a metric the provider is never asked for keeps its
// history.
func TestFallbackCountsOnlyProviderFailures(t *testing.T) {
	due := testStart.Add(-200 * time.Second)
	queueValue := func() v2.MetricSpec { return withFallback(externalValue("queue_depth", "10"), 180, 10) }
	badSelector := func() v2.MetricSpec {
		m := queueValue()
		m.External.Metric.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "queue", Operator: "Bogus", Values: []string{"a"}}}}
		return m
	}
	cases := []struct {
		name       string
		metric     v2.MetricSpec
		previous   v2.FallbackStatus
		wantCause  string
		wantStatus v2.FallbackStatus
		wantFirst  time.Time
		wantEvents []string
	}{
		{
			name: "no pods selected with a healthy adapter does not start the fallback", metric: queueValue(),
			previous: v2.FallbackStatusNormal, wantCause: "no pods returned by selector",
			wantStatus: v2.FallbackStatusNormal,
		},
		{
			name: "no pods selected with a healthy adapter ends a fallback", metric: queueValue(),
			previous: v2.FallbackStatusFallback, wantCause: "no pods returned by selector",
			wantStatus: v2.FallbackStatusNormal,
			wantEvents: []string{"Normal ExternalMetricFallbackDeactivated External metric 'queue_depth' recovered, fallback deactivated"},
		},
		{
			name: "a metric selector the provider is never asked with keeps the history", metric: badSelector(),
			previous: v2.FallbackStatusNormal, wantCause: `"Bogus" is not a valid label selector operator`,
			wantStatus: v2.FallbackStatusNormal, wantFirst: due,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withStatusMetrics(newHPA(1, 20, tc.metric),
				persistedFailure("queue_depth", tc.metric.External.Metric.Selector, tc.previous, due)), fallbackOn)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", extOK(100000))

			err := h.reconcileFails()
			if !strings.Contains(err.Error(), tc.wantCause) {
				t.Errorf("error = %v, want the cause %q", err, tc.wantCause)
			}
			h.assertUpdates()
			hpa := h.hpa(testHPAName)
			assertFallbackStatus(t, hpa, "queue_depth", tc.wantStatus, tc.wantFirst)
			assertConditions(t, hpa, gotScale, failedExternal, noFallbackActive)
			c := conditionOf(t, hpa, autoscalingv2.ScalingActive)
			if !strings.Contains(c.Message, tc.wantCause) || !strings.Contains(c.Message, "not a failure of the metrics provider") {
				t.Errorf("ScalingActive message = %q, want the cause and why it does not count toward the fallback", c.Message)
			}
			var fallbackEvents []string
			for _, e := range h.events() {
				if r := eventReason(e); r == fallback.EventActivated || r == fallback.EventDeactivated {
					fallbackEvents = append(fallbackEvents, e)
				}
			}
			if strings.Join(fallbackEvents, "\n") != strings.Join(tc.wantEvents, "\n") {
				t.Errorf("fallback events = %q, want %q", fallbackEvents, tc.wantEvents)
			}
		})
	}
}

// TestFallbackEventPerTransition: every end of a fallback has its
// Deactivated event, whatever ends it, and a transition is reported once,
// when it is stored, even across a failed status write.
func TestFallbackEventPerTransition(t *testing.T) {
	inFallback := func(spec v2.MetricSpec) *v2.HorizontalPodAutoscaler {
		return withStatusMetrics(newHPA(1, 20, spec), persistedFailure("queue_depth", nil, v2.FallbackStatusFallback, testStart.Add(-time.Hour)))
	}
	const ended = "Normal ExternalMetricFallbackDeactivated Fallback deactivated for external metric 'queue_depth': its fallback is no longer configured or enabled"
	cases := []struct {
		name string
		hpa  *v2.HorizontalPodAutoscaler
		opts harnessOptions
		want string
	}{
		{name: "the fallback stanza removed", hpa: inFallback(externalAverage("queue_depth", "10")), opts: fallbackOn, want: ended},
		{name: "the metric removed from the spec", hpa: inFallback(externalAverage("backlog", "10")), opts: fallbackOn, want: ended},
		{name: "the gate turned off", hpa: inFallback(queueDepth()), opts: fallbackOff, want: ended},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.hpa, tc.opts)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
			h.metrics.SetExternal("backlog", metricstest.ExternalAnswer{Err: errBoom})
			for pass := range 2 {
				_ = h.reconcile(testHPAName)
				want := []string{}
				if pass == 0 {
					want = []string{tc.want}
				}
				if got := h.eventsWithReason(fallback.EventDeactivated); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("pass %d: deactivation events = %q, want %q", pass, got, want)
				}
				h.clock.Step(15 * time.Second)
			}
		})
	}

	t.Run("a failed status write at activation leads to one event, when stored", func(t *testing.T) {
		h := newHarness(t, withStatusMetrics(newHPA(1, 20, queueDepth()),
			persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, testStart.Add(-200*time.Second))), fallbackOn)
		h.scales.setScale(5, 5, testSelector)
		h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
		h.source.updateErr = errBoom
		h.reconcileFails()
		if got := h.eventsWithReason(fallback.EventActivated); len(got) != 0 {
			t.Errorf("activation events of the pass whose status was not stored = %q, want none", got)
		}
		h.source.updateErr = nil
		for pass := range 2 {
			h.clock.Step(15 * time.Second)
			h.mustReconcile()
			want := 0
			if pass == 0 {
				want = 1
			}
			if got := h.eventsWithReason(fallback.EventActivated); len(got) != want {
				t.Errorf("pass %d after the failed write: activation events = %q, want %d", pass, got, want)
			}
		}
	})
	t.Run("a failed status write at recovery leads to one event, when stored", func(t *testing.T) {
		h := newHarness(t, inFallback(queueDepth()), fallbackOn)
		h.scales.setScale(5, 5, testSelector)
		h.metrics.SetExternal("queue_depth", extOK(50000))
		h.source.updateErr = errBoom
		_ = h.reconcile(testHPAName)
		if got := h.eventsWithReason(fallback.EventDeactivated); len(got) != 0 {
			t.Errorf("deactivation events of the pass whose status was not stored = %q, want none", got)
		}
		h.source.updateErr = nil
		for pass := range 2 {
			h.clock.Step(15 * time.Second)
			h.mustReconcile()
			want := 0
			if pass == 0 {
				want = 1
			}
			if got := h.eventsWithReason(fallback.EventDeactivated); len(got) != want {
				t.Errorf("pass %d after the failed write: deactivation events = %q, want %d", pass, got, want)
			}
		}
	})
}
