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
	"context"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// The tests of a pass's fallback (fallback.go), by subject: this file has
// its lifecycle, the failures that count, its combination with other
// metrics, zero replicas; fallback_gate_test the gate off and metrics
// without a fallback; fallback_reports_test its events and series;
// fallback_entries_test
// the status entries that carry the failure history, fallback_history_test
// that history across early exits and huge durations, fallback_strategy_test
// the strategies, fallback_wake_test the deadline and the wake-up a pass asks
// for. A new test goes in the file of its subject.

// KEP-5679's example: queue_depth falls back to 10 replicas after 3m0s.
const activatedQueueDepth = "Normal ExternalMetricFallbackActivated Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback replica count: 10"

var (
	fallbackActive   = condTrue(v2.ExternalMetricFallbackActive, "FallbackActive")
	noFallbackActive = condFalse(v2.ExternalMetricFallbackActive, "NoFallbackActive")
	failedExternal   = condFalse(autoscalingv2.ScalingActive, "FailedGetExternalMetric")
)

// queueDepth is an AverageValue External metric (10 per replica) with
// KEP-5679's fallback: 10 replicas after 180 s of failures.
func queueDepth() v2.MetricSpec {
	return withFallback(externalAverage("queue_depth", "10"), 180, 10)
}

// failing is the event pair of a pass whose only metric failed.
func failingEvents() []string {
	return []string{"Warning FailedGetExternalMetric ~adapter unavailable", "Warning FailedComputeMetricsReplicas ~invalid metrics (1 invalid out of 1)"}
}

// assertFallbackGauge checks the HPA's series of External metrics in
// fallback, which an alert on a lasting fallback reads.
func assertFallbackGauge(t *testing.T, h *harness, want int) {
	t.Helper()
	if got, ok := h.monitor.fallbackGauge(testHPAName); !ok || got != want {
		t.Errorf("external_metrics_in_fallback = %d (series present: %v), want %d", got, ok, want)
	}
}

func fallbackCondition(t *testing.T, hpa *v2.HorizontalPodAutoscaler) autoscalingv2.HorizontalPodAutoscalerCondition {
	t.Helper()
	return conditionOf(t, hpa, v2.ExternalMetricFallbackActive)
}

// TestFallbackLifecycle follows one metric through KEP-5679's states with
// the fake clock: failing, in fallback, recovered, failing again.
func TestFallbackLifecycle(t *testing.T) {
	h := newHarness(t, newHPA(1, 20, queueDepth()), fallbackOn)
	h.scales.setScale(5, 5, testSelector)
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})

	// First failure: firstFailureTime is now, fallbackStatus Normal, the
	// metric is invalid and nothing scales.
	err := h.reconcileFails()
	if !strings.Contains(err.Error(), "invalid metrics (1 invalid out of 1)") {
		t.Errorf("error = %v", err)
	}
	hpa := h.hpa(testHPAName)
	h.assertUpdates()
	assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusNormal, testStart)
	if s := externalStatusOf(t, hpa, "queue_depth"); s.Metric.Name != "queue_depth" || s.Metric.Selector != nil ||
		s.Current.AverageValue != nil || s.Current.Value != nil {
		t.Errorf("failing metric status = %+v, want its identifier and no value", s)
	}
	assertConditions(t, hpa, gotScale, failedExternal, noFallbackActive)
	if c := fallbackCondition(t, hpa); c.Message != "no external metric is using its fallback" || !c.LastTransitionTime.Time.Equal(testStart) {
		t.Errorf("ExternalMetricFallbackActive = %+v", c)
	}
	h.assertEvents(failingEvents()...)
	assertFallbackGauge(t, h, 0)

	// Consecutive failures keep the first failure's time.
	for _, at := range []time.Duration{60 * time.Second, 179 * time.Second} {
		h.clock.SetTime(testStart.Add(at))
		h.reconcileFails()
		hpa = h.hpa(testHPAName)
		assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusNormal, testStart)
		assertConditions(t, hpa, gotScale, failedExternal, noFallbackActive)
		if c := fallbackCondition(t, hpa); !c.LastTransitionTime.Time.Equal(testStart) {
			t.Errorf("at +%v: ExternalMetricFallbackActive moved to %v without a status change", at, c.LastTransitionTime)
		}
		h.assertEvents(failingEvents()...)
	}
	h.assertUpdates()

	// At exactly failureDurationSeconds the fallback applies: 10 replicas,
	// one event, the condition flips.
	activation := testStart.Add(180 * time.Second)
	h.clock.SetTime(activation)
	h.mustReconcile()
	h.assertUpdates(10)
	hpa = h.hpa(testHPAName)
	assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusFallback, testStart)
	assertConditions(t, hpa, notScaledTo0, rescaled, validMetric, withinRange, fallbackActive)
	c := fallbackCondition(t, hpa)
	if c.Message != "external metrics using their fallback replica count: queue_depth" || !c.LastTransitionTime.Time.Equal(activation) {
		t.Errorf("ExternalMetricFallbackActive = %+v, want the metric named, flipped at %v", c, activation)
	}
	if hpa.Status.DesiredReplicas != 10 {
		t.Errorf("desiredReplicas = %d, want 10", hpa.Status.DesiredReplicas)
	}
	h.assertEvents("Warning FailedGetExternalMetric ~adapter unavailable",
		"Normal SuccessfulRescale New size: 10; reason: external metric queue_depth fallback above target", activatedQueueDepth)
	assertFallbackGauge(t, h, 1)
	if got := h.monitor.reconciliations; got[len(got)-1] != "scale_up/none" {
		t.Errorf("last reconciliation = %s, want scale_up/none (a metric in fallback is valid)", got[len(got)-1])
	}

	// Still failing: the fallback holds, no second activation event, the
	// condition keeps its transition time.
	h.scales.setScale(10, 10, testSelector)
	h.clock.SetTime(testStart.Add(195 * time.Second))
	h.mustReconcile()
	h.assertUpdates(10)
	hpa = h.hpa(testHPAName)
	assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusFallback, testStart)
	if c := fallbackCondition(t, hpa); c.Status != corev1.ConditionTrue || !c.LastTransitionTime.Time.Equal(activation) {
		t.Errorf("ExternalMetricFallbackActive = %+v, want True since %v", c, activation)
	}
	h.assertEvents("Warning FailedGetExternalMetric ~adapter unavailable")

	// Recovery: fallbackStatus Normal, firstFailureTime cleared, one
	// deactivation event, the condition flips back.
	recovery := testStart.Add(210 * time.Second)
	h.clock.SetTime(recovery)
	h.metrics.SetExternal("queue_depth", extOK(100000))
	h.mustReconcile()
	h.assertUpdates(10)
	hpa = h.hpa(testHPAName)
	assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusNormal, time.Time{})
	if s := externalStatusOf(t, hpa, "queue_depth"); s.Current.AverageValue == nil || s.Current.AverageValue.String() != "10" {
		t.Errorf("recovered metric status = %+v, want averageValue 10", s)
	}
	assertConditions(t, hpa, notScaledTo0, condTrue(autoscalingv2.AbleToScale, "ReadyForNewScale"), validMetric, withinRange, noFallbackActive)
	if c := fallbackCondition(t, hpa); c.Message != "no external metric is using its fallback" || !c.LastTransitionTime.Time.Equal(recovery) {
		t.Errorf("ExternalMetricFallbackActive = %+v, want False since %v", c, recovery)
	}
	h.assertEvents("Normal ExternalMetricFallbackDeactivated External metric 'queue_depth' recovered, fallback deactivated")
	assertFallbackGauge(t, h, 0)

	// Healthy again: no more events, no transition.
	h.clock.SetTime(testStart.Add(225 * time.Second))
	h.mustReconcile()
	hpa = h.hpa(testHPAName)
	if c := fallbackCondition(t, hpa); !c.LastTransitionTime.Time.Equal(recovery) {
		t.Errorf("ExternalMetricFallbackActive moved to %v without a status change", c.LastTransitionTime)
	}
	h.assertEvents()

	// A new run of failures starts a new clock.
	again := testStart.Add(240 * time.Second)
	h.clock.SetTime(again)
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
	h.reconcileFails()
	hpa = h.hpa(testHPAName)
	assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusNormal, again)
	assertConditions(t, hpa, notScaledTo0, gotScale, failedExternal, withinRange, noFallbackActive)
	h.assertEvents(failingEvents()...)
	h.assertUpdates(10)
}

// TestFallbackFailureKinds: every way a fetch can fail starts the run of
// failures, and the fallback applies after it.
func TestFallbackFailureKinds(t *testing.T) {
	unavailable := apierrors.NewServiceUnavailable("the server is currently unable to handle the request")
	cases := []struct {
		name string
		// set makes the metric fail; timeout, when set, bounds each pass.
		set     func(c *metricstest.Client)
		timeout time.Duration
		wantErr string
	}{
		{
			name:    "an error from the adapter",
			set:     func(c *metricstest.Client) { c.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom}) },
			wantErr: "adapter unavailable",
		},
		{
			name: "an empty item list",
			set: func(c *metricstest.Client) {
				c.SetExternal("queue_depth", metricstest.ExternalAnswer{Timestamp: testStart})
			},
			wantErr: metrics.ErrNoMetrics.Error(),
		},
		{
			name:    "no series for the metric at all",
			set:     func(*metricstest.Client) {},
			wantErr: "no answer set",
		},
		{
			name: "a fetch that never answers, cut by the pass's deadline",
			set: func(c *metricstest.Client) {
				c.SetExternal("queue_depth", extOK(1000)).SetHook(metricstest.BlockUntilDone)
			},
			timeout: 20 * time.Millisecond,
			wantErr: context.DeadlineExceeded.Error(),
		},
		{
			name: "the whole external metrics API unavailable",
			set: func(c *metricstest.Client) {
				c.SetExternal("queue_depth", extOK(1000)).SetHook(func(context.Context, metricstest.Request) error { return unavailable })
			},
			wantErr: "the server is currently unable to handle the request",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 20, queueDepth()), fallbackOn)
			h.scales.setScale(5, 5, testSelector)
			tc.set(h.metrics)
			pass := func() error {
				ctx := h.ctx
				if tc.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				_, _, err := h.c.reconcileKey(ctx, h.key(testHPAName))
				return err
			}

			err := pass()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("first pass error = %v, want one containing %q", err, tc.wantErr)
			}
			assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusNormal, testStart)
			assertConditions(t, h.hpa(testHPAName), gotScale, failedExternal, noFallbackActive)
			if c := conditionOf(t, h.hpa(testHPAName), autoscalingv2.ScalingActive); !strings.Contains(c.Message, tc.wantErr) {
				t.Errorf("ScalingActive message = %q, want the cause %q", c.Message, tc.wantErr)
			}

			h.clock.Step(180 * time.Second)
			if err := pass(); err != nil {
				t.Fatalf("pass at the deadline: %v", err)
			}
			h.assertUpdates(10)
			assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusFallback, testStart)
			if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 1 || got[0] != activatedQueueDepth {
				t.Errorf("activation events = %q", got)
			}
		})
	}
}

// multiCase is one pass over an HPA with several metrics, some of which may
// be failing since before the pass (status says since when).
type multiCase struct {
	name        string
	hpa         *v2.HorizontalPodAutoscaler
	spec        int32
	readyPods   int
	external    map[string]metricstest.ExternalAnswer
	behavior    *v2.HorizontalPodAutoscalerBehavior
	wantErr     string
	wantUpdates []int32
	wantConds   []wantCond
	wantReason  string // of the rescale event; "" when none
	wantFallMsg string // ExternalMetricFallbackActive message
}

func (tc multiCase) run(t *testing.T) {
	if tc.behavior != nil {
		tc.hpa.Spec.Behavior = tc.behavior
	}
	h := newHarness(t, tc.hpa, noDownscaleWindow(fallbackOn))
	h.scales.setScale(tc.spec, tc.spec, testSelector)
	h.addPods(tc.readyPods, 100)
	for name, a := range tc.external {
		h.metrics.SetExternal(name, a)
	}
	err := h.reconcile(testHPAName)
	switch {
	case tc.wantErr == "" && err != nil:
		t.Fatalf("reconcile: %v", err)
	case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
		t.Fatalf("reconcile error = %v, want one containing %q", err, tc.wantErr)
	}
	h.assertUpdates(tc.wantUpdates...)
	hpa := h.hpa(testHPAName)
	assertConditions(t, hpa, tc.wantConds...)
	if tc.wantFallMsg != "" {
		if c := fallbackCondition(t, hpa); c.Message != tc.wantFallMsg {
			t.Errorf("ExternalMetricFallbackActive message = %q, want %q", c.Message, tc.wantFallMsg)
		}
	}
	var rescales []string
	for _, e := range h.events() {
		if eventReason(e) == "SuccessfulRescale" {
			rescales = append(rescales, e)
		}
	}
	switch {
	case tc.wantReason == "" && len(rescales) != 0:
		t.Errorf("rescale events = %q, want none", rescales)
	case tc.wantReason != "" && (len(rescales) != 1 || !strings.HasSuffix(rescales[0], "reason: "+tc.wantReason)):
		t.Errorf("rescale events = %q, want one with reason %q", rescales, tc.wantReason)
	}
}

// TestFallbackCombination pins how a fallback joins the other metrics: the
// max over metrics, a fallback counting as valid, then the limits.
func TestFallbackCombination(t *testing.T) {
	failing := metricstest.ExternalAnswer{Err: errBoom}
	longAgo := testStart.Add(-200 * time.Second)
	recently := testStart.Add(-30 * time.Second)
	backlog := func() v2.MetricSpec { return withFallback(externalAverage("backlog", "10"), 180, 7) }
	both := func(minR, maxR int32, first, second time.Time, metrics ...v2.MetricSpec) *v2.HorizontalPodAutoscaler {
		return withStatusMetrics(newHPA(minR, maxR, metrics...),
			persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, first),
			persistedFailure("backlog", nil, v2.FallbackStatusNormal, second))
	}
	queueDue := func(minR, maxR int32, metrics ...v2.MetricSpec) *v2.HorizontalPodAutoscaler {
		return withStatusMetrics(newHPA(minR, maxR, metrics...), persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, longAgo))
	}
	cases := []multiCase{
		{
			name: "two external metrics in fallback: the larger fallback wins",
			hpa:  both(1, 20, longAgo, longAgo, backlog(), queueDepth()), spec: 5,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing, "backlog": failing},
			wantUpdates: []int32{10}, wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange, fallbackActive},
			wantReason:  "external metric queue_depth fallback above target",
			wantFallMsg: "external metrics using their fallback replica count: backlog, queue_depth",
		},
		{
			name: "two metrics failing independently: one in fallback, one not yet due",
			hpa:  both(1, 20, longAgo, recently, queueDepth(), backlog()), spec: 5,
			external: map[string]metricstest.ExternalAnswer{"queue_depth": failing, "backlog": failing},
			// The due one scales up; the other is invalid and reported.
			wantErr:     "invalid metrics (1 invalid out of 2)",
			wantUpdates: []int32{10}, wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange, fallbackActive},
			wantReason:  "external metric queue_depth fallback above target",
			wantFallMsg: "external metrics using their fallback replica count: queue_depth",
		},
		{
			name: "a healthy metric asking for more than the fallback wins",
			hpa:  queueDue(1, 20, queueDepth(), externalAverage("requests", "10")), spec: 7,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing, "requests": extOK(120000)},
			wantUpdates: []int32{12}, wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange, fallbackActive},
			wantReason: "external metric requests(nil) above target",
		},
		{
			name: "the fallback asking for more than a healthy metric wins",
			hpa:  queueDue(1, 20, queueDepth(), externalAverage("requests", "10")), spec: 5,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing, "requests": extOK(30000)},
			wantUpdates: []int32{10}, wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange, fallbackActive},
			wantReason: "external metric queue_depth fallback above target",
		},
		{
			name: "a fallback below the current count scales down when the other metric agrees",
			hpa:  queueDue(1, 20, queueDepth(), externalAverage("requests", "10")), spec: 14,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing, "requests": extOK(40000)},
			wantUpdates: []int32{10}, wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange, fallbackActive},
			wantReason: "All metrics below target",
		},
		{
			name: "a fallback alone below the current count scales down",
			hpa:  queueDue(1, 20, queueDepth()), spec: 14,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing},
			wantUpdates: []int32{10}, wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange, fallbackActive},
			wantReason: "All metrics below target",
		},
		{
			name: "a failing metric not yet in fallback blocks a scale-down by the others",
			hpa: withStatusMetrics(newHPA(1, 20, queueDepth(), externalAverage("requests", "10")),
				persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, recently)), spec: 14,
			external:  map[string]metricstest.ExternalAnswer{"queue_depth": failing, "requests": extOK(40000)},
			wantErr:   "invalid metrics (1 invalid out of 2)",
			wantConds: []wantCond{gotScale, failedExternal, noFallbackActive},
		},
		{
			name: "maxReplicas clamps the fallback",
			hpa:  queueDue(1, 8, queueDepth()), spec: 5,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing},
			wantUpdates: []int32{8},
			wantConds:   []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "TooManyReplicas"), fallbackActive},
			wantReason:  "external metric queue_depth fallback above target",
		},
		{
			name: "minReplicas clamps a fallback below it",
			hpa: withStatusMetrics(newHPA(4, 20, withFallback(externalAverage("queue_depth", "10"), 180, 2)),
				persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, longAgo)), spec: 6,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing},
			wantUpdates: []int32{4},
			wantConds:   []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "TooFewReplicas"), fallbackActive},
			wantReason:  "All metrics below target",
		},
		{
			name: "the legacy scale-up limit applies to the fallback",
			hpa:  queueDue(1, 20, queueDepth()), spec: 3,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing},
			wantUpdates: []int32{6},
			wantConds:   []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"), fallbackActive},
			wantReason:  "external metric queue_depth fallback above target",
		},
		{
			name: "a behavior Pods policy limits the jump to the fallback",
			hpa:  queueDue(1, 20, queueDepth()), spec: 3,
			behavior: &v2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 2, PeriodSeconds: 60}}}},
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing},
			wantUpdates: []int32{5},
			wantConds:   []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"), fallbackActive},
			wantReason:  "external metric queue_depth fallback above target",
		},
		{
			name: "scale-down stabilization holds a fallback below the recent recommendations",
			hpa:  queueDue(1, 20, queueDepth()), spec: 14,
			behavior: &v2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](300)}},
			external: map[string]metricstest.ExternalAnswer{"queue_depth": failing},
			// The controller's first pass records the current count as a
			// recommendation, so the window holds 14.
			wantConds: []wantCond{condTrue(autoscalingv2.AbleToScale, "ScaleDownStabilized"), validMetric, withinRange, fallbackActive},
		},
		{
			name: "a Value External metric in fallback with a selector",
			hpa: withStatusMetrics(newHPA(1, 20, withFallback(withSelector(externalValue("queue_depth", "10"), map[string]string{"queue": "a"}), 180, 10)),
				persistedFailure("queue_depth", &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "a"}}, v2.FallbackStatusNormal, longAgo)),
			spec: 5, readyPods: 5,
			external:    map[string]metricstest.ExternalAnswer{"queue_depth": failing},
			wantUpdates: []int32{10}, wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange, fallbackActive},
			wantReason: "external metric queue_depth fallback above target",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

// TestFallbackConditionAcrossMetrics: the condition names every metric in
// fallback; a second metric joining changes the message, not the
// transition time; each activation has its own event.
func TestFallbackConditionAcrossMetrics(t *testing.T) {
	backlog := withFallback(externalAverage("backlog", "10"), 300, 7)
	h := newHarness(t, newHPA(1, 20, queueDepth(), backlog), fallbackOn)
	h.scales.setScale(5, 5, testSelector)
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
	h.metrics.SetExternal("backlog", metricstest.ExternalAnswer{Err: errBoom})
	h.reconcileFails()
	h.events()

	// queue_depth is due, backlog is not: the pass scales on the fallback
	// and reports backlog's failure.
	h.clock.SetTime(testStart.Add(180 * time.Second))
	h.reconcileFails()
	hpa := h.hpa(testHPAName)
	c := fallbackCondition(t, hpa)
	if c.Status != corev1.ConditionTrue || c.Message != "external metrics using their fallback replica count: queue_depth" {
		t.Errorf("ExternalMetricFallbackActive = %+v", c)
	}
	assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusFallback, testStart)
	assertFallbackStatus(t, hpa, "backlog", v2.FallbackStatusNormal, testStart)
	if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 1 || got[0] != activatedQueueDepth {
		t.Errorf("activation events = %q", got)
	}

	h.clock.SetTime(testStart.Add(300 * time.Second))
	h.mustReconcile()
	hpa = h.hpa(testHPAName)
	c = fallbackCondition(t, hpa)
	if c.Message != "external metrics using their fallback replica count: queue_depth, backlog" ||
		!c.LastTransitionTime.Time.Equal(testStart.Add(180*time.Second)) {
		t.Errorf("ExternalMetricFallbackActive = %+v, want both metrics, True since +180s", c)
	}
	want := "Normal ExternalMetricFallbackActivated Fallback activated for external metric 'backlog' after 5m0s of consecutive failures, using fallback replica count: 7"
	if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 1 || got[0] != want {
		t.Errorf("activation events = %q, want [%q]", got, want)
	}

	// One recovers: one deactivation event, the condition stays True.
	h.metrics.SetExternal("queue_depth", extOK(100000))
	h.clock.SetTime(testStart.Add(315 * time.Second))
	h.mustReconcile()
	hpa = h.hpa(testHPAName)
	c = fallbackCondition(t, hpa)
	if c.Message != "external metrics using their fallback replica count: backlog" || c.Status != corev1.ConditionTrue ||
		!c.LastTransitionTime.Time.Equal(testStart.Add(180*time.Second)) {
		t.Errorf("ExternalMetricFallbackActive = %+v", c)
	}
	if got := h.eventsWithReason("ExternalMetricFallbackDeactivated"); len(got) != 1 ||
		got[0] != "Normal ExternalMetricFallbackDeactivated External metric 'queue_depth' recovered, fallback deactivated" {
		t.Errorf("deactivation events = %q", got)
	}
}

// TestFallbackAtZero: a fallback may bring back a workload this controller
// scaled to zero, never one a person set to zero.
func TestFallbackAtZero(t *testing.T) {
	zeroHPA := func(scaledToZero bool) *v2.HorizontalPodAutoscaler {
		hpa := withStatusMetrics(newHPA(0, 20, withFallback(externalAverage("queue_depth", "10"), 180, 3)),
			persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, testStart.Add(-200*time.Second)))
		if scaledToZero {
			hpa = withConditions(hpa, scaledToZeroStatus(testStart.Add(-time.Hour)))
		}
		return hpa
	}
	opts := withGates(features.HPAExternalMetricFallback, true, features.HPAScaleToZero, true)

	t.Run("ScaledToZero=True: the fallback scales up from zero", func(t *testing.T) {
		h := newHarness(t, zeroHPA(true), opts)
		h.scales.setScale(0, 0, testSelector)
		h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
		h.mustReconcile()
		h.assertUpdates(3)
		hpa := h.hpa(testHPAName)
		assertConditions(t, hpa, notScaledTo0, rescaled, validMetric, withinRange, fallbackActive)
		assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusFallback, testStart.Add(-200*time.Second))
		h.assertEvents("Warning FailedGetExternalMetric ~adapter unavailable",
			"Normal SuccessfulRescale New size: 3; reason: external metric queue_depth fallback above target",
			"Normal ExternalMetricFallbackActivated Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback replica count: 3")
	})
	t.Run("ScaledToZero=True, not due yet: stays at zero and keeps counting", func(t *testing.T) {
		hpa := zeroHPA(true)
		hpa.Status.CurrentMetrics = nil
		h := newHarness(t, hpa, opts)
		h.scales.setScale(0, 0, testSelector)
		h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
		h.reconcileFails()
		h.assertUpdates()
		assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", v2.FallbackStatusNormal, testStart)
		assertConditions(t, h.hpa(testHPAName), scaledToZero, gotScale, failedExternal, noFallbackActive)
		h.clock.Step(180 * time.Second)
		h.mustReconcile()
		h.assertUpdates(3)
	})
	t.Run("no ScaledToZero condition: a workload a person set to zero stays there", func(t *testing.T) {
		h := newHarness(t, zeroHPA(false), opts)
		h.scales.setScale(0, 0, testSelector)
		h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
		h.mustReconcile()
		h.assertUpdates()
		hpa := h.hpa(testHPAName)
		assertConditions(t, hpa, gotScale, disabled, noFallbackActive)
		if n := len(h.metrics.Requests()); n != 0 {
			t.Errorf("metrics fetched %d times while paused, want none", n)
		}
		if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 0 {
			t.Errorf("activation events = %q", got)
		}
	})
}
