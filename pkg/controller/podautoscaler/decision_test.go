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
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// The decision trace: status.lastScaleDecision, behind KubeHPADecisionTrace
// (or its former name, HPAStatusDecisionTrace).

var (
	traceOn  = withGates(features.KubeHPADecisionTrace, true)
	traceOff = withGates(features.KubeHPADecisionTrace, false)
	// A deployment that still sets the trace's former name keeps it.
	traceByFormerName = withGates(features.HPAStatusDecisionTrace, true)
)

// withMoreGates adds gates to o.
func withMoreGates(o harnessOptions, kv ...any) harnessOptions {
	more := withGates(kv...)
	for g, on := range o.gates {
		more.gates[g] = on
	}
	o.gates = more.gates
	return o
}

// Metric entries as the tests expect them.
func used(i int32, replicas int32, reason v2.HPAMetricScaleDecisionReason) v2.HPAMetricScaleDecision {
	return v2.HPAMetricScaleDecision{MetricIndex: i, ProposedReplicas: ptr.To(replicas), Status: v2.MetricScaleDecisionUsed, Reason: reason}
}

func valid(i int32, replicas int32, reason v2.HPAMetricScaleDecisionReason) v2.HPAMetricScaleDecision {
	return v2.HPAMetricScaleDecision{MetricIndex: i, ProposedReplicas: ptr.To(replicas), Status: v2.MetricScaleDecisionValid, Reason: reason}
}

func invalidMetric(i int32, reason v2.HPAMetricScaleDecisionReason) v2.HPAMetricScaleDecision {
	return v2.HPAMetricScaleDecision{MetricIndex: i, Status: v2.MetricScaleDecisionInvalid, Reason: reason}
}

// wantDecision is a decision without its time, which assertDecision checks
// apart.
type wantDecision struct {
	reason      v2.HPAScaleDecisionReason
	current     int32
	recommended *int32
	desired     int32
	metrics     []v2.HPAMetricScaleDecision
	constraints []v2.HPAScaleDecisionConstraint
}

func (w wantDecision) decision(generation int64, at time.Time) *v2.HorizontalPodAutoscalerScaleDecision {
	return &v2.HorizontalPodAutoscalerScaleDecision{
		Time: metav1.NewTime(at), ObservedGeneration: generation, CurrentReplicas: w.current,
		RecommendedReplicas: w.recommended, DesiredReplicas: w.desired, Reason: w.reason,
		Metrics: w.metrics, Constraints: w.constraints,
	}
}

// assertDecision checks the stored decision against want, made at at.
func assertDecision(t *testing.T, hpa *v2.HorizontalPodAutoscaler, want *v2.HorizontalPodAutoscalerScaleDecision) {
	t.Helper()
	got := hpa.Status.LastScaleDecision
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("lastScaleDecision =\n  %s\nwant\n  %s", describeDecision(got), describeDecision(want))
	}
}

func describeDecision(d *v2.HorizontalPodAutoscalerScaleDecision) string {
	if d == nil {
		return "<nil>"
	}
	rec := "-"
	if d.RecommendedReplicas != nil {
		rec = fmt.Sprint(*d.RecommendedReplicas)
	}
	s := fmt.Sprintf("%s at %s gen %d: current %d recommended %s desired %d constraints %v metrics [",
		d.Reason, d.Time.UTC().Format(time.TimeOnly), d.ObservedGeneration, d.CurrentReplicas, rec, d.DesiredReplicas, d.Constraints)
	for _, m := range d.Metrics {
		p := "-"
		if m.ProposedReplicas != nil {
			p = fmt.Sprint(*m.ProposedReplicas)
		}
		s += fmt.Sprintf(" #%d %s %s %s", m.MetricIndex, m.Status, p, m.Reason)
	}
	return s + " ]"
}

// TestDecisionTrace follows one pass per case and checks the decision it
// stores: its headline, each metric's entry, the recommendation and the
// constraints that moved the count.
func TestDecisionTrace(t *testing.T) {
	queue, backlog := externalAverage("queue", "10"), externalAverage("backlog", "10")
	cases := []struct {
		name    string
		opts    harnessOptions
		hpa     *v2.HorizontalPodAutoscaler
		current int32
		answers map[string]metricstest.ExternalAnswer
		setup   func(h *harness)
		want    wantDecision
	}{
		{
			name: "the trace's former gate name still turns it on", opts: traceByFormerName,
			hpa: newHPA(1, 10, queue, backlog), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(40000), "backlog": extOK(20000)},
			want: wantDecision{reason: v2.ScaleDecisionMetricRecommendation, current: 3, recommended: ptr.To[int32](4), desired: 4,
				metrics: []v2.HPAMetricScaleDecision{used(0, 4, v2.MetricScaleDecisionComputed), valid(1, 2, v2.MetricScaleDecisionComputed)}},
		},
		{
			name: "two metrics: the larger proposal is used and applied", opts: traceOn,
			hpa: newHPA(1, 10, queue, backlog), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(40000), "backlog": extOK(20000)},
			want: wantDecision{reason: v2.ScaleDecisionMetricRecommendation, current: 3, recommended: ptr.To[int32](4), desired: 4,
				metrics: []v2.HPAMetricScaleDecision{used(0, 4, v2.MetricScaleDecisionComputed), valid(1, 2, v2.MetricScaleDecisionComputed)}},
		},
		{
			name: "maxReplicas holds the recommendation", opts: traceOn,
			hpa: newHPA(1, 3, queue, backlog), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(20000), "backlog": extOK(60000)},
			want: wantDecision{reason: v2.ScaleDecisionReplicaLimit, current: 3, recommended: ptr.To[int32](6), desired: 3,
				metrics:     []v2.HPAMetricScaleDecision{valid(0, 2, v2.MetricScaleDecisionComputed), used(1, 6, v2.MetricScaleDecisionComputed)},
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintMaxReplicas}},
		},
		{
			name: "a scale-up policy limits the change", opts: traceOn,
			hpa: withBehavior(newHPA(1, 10, queue), &v2.HorizontalPodAutoscalerBehavior{
				ScaleUp: rules(nil, nil, podsPolicy(1, 60))}), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(60000)},
			want: wantDecision{reason: v2.ScaleDecisionPolicyLimited, current: 3, recommended: ptr.To[int32](6), desired: 4,
				metrics:     []v2.HPAMetricScaleDecision{used(0, 6, v2.MetricScaleDecisionComputed)},
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintScalingPolicy}},
		},
		{
			name: "scale-down stabilization holds the count", opts: traceOn,
			hpa: newHPA(1, 10, queue), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(10000)},
			want: wantDecision{reason: v2.ScaleDecisionStabilized, current: 3, recommended: ptr.To[int32](1), desired: 3,
				metrics:     []v2.HPAMetricScaleDecision{used(0, 1, v2.MetricScaleDecisionComputed)},
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintStabilization}},
		},
		{
			name: "metrics within tolerance keep the count", opts: traceOn,
			hpa: newHPA(1, 10, queue), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(31000)},
			want: wantDecision{reason: v2.ScaleDecisionWithinTolerance, current: 3, recommended: ptr.To[int32](3), desired: 3,
				metrics:     []v2.HPAMetricScaleDecision{used(0, 3, v2.MetricScaleDecisionComputed)},
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintTolerance}},
		},
		{
			name: "an invalid metric keeps the valid ones from scaling down", opts: traceOn,
			hpa: newHPA(1, 10, queue, backlog), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": {Err: errBoom}, "backlog": extOK(10000)},
			want: wantDecision{reason: v2.ScaleDecisionInvalidMetrics, current: 3, recommended: ptr.To[int32](1), desired: 3,
				metrics:     []v2.HPAMetricScaleDecision{invalidMetric(0, v2.MetricScaleDecisionFetchFailed), used(1, 1, v2.MetricScaleDecisionSkippedScaleDown)},
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintInvalidMetricGuard}},
		},
		{
			name: "an invalid metric does not stop a scale-up", opts: traceOn,
			hpa: newHPA(1, 10, queue, backlog), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": {Err: errBoom}, "backlog": extOK(50000)},
			want: wantDecision{reason: v2.ScaleDecisionMetricRecommendation, current: 3, recommended: ptr.To[int32](5), desired: 5,
				metrics: []v2.HPAMetricScaleDecision{invalidMetric(0, v2.MetricScaleDecisionFetchFailed), used(1, 5, v2.MetricScaleDecisionComputed)}},
		},
		{
			name: "every metric failing gives no recommendation", opts: traceOn,
			hpa: newHPA(1, 10, queue, backlog), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": {Err: errBoom}, "backlog": {Err: errBoom}},
			want: wantDecision{reason: v2.ScaleDecisionRecommendationFailed, current: 3, desired: 3,
				metrics: []v2.HPAMetricScaleDecision{invalidMetric(0, v2.MetricScaleDecisionFetchFailed), invalidMetric(1, v2.MetricScaleDecisionFetchFailed)}},
		},
		{
			name: "a CPU metric read for no pod has no matching pods", opts: traceOn,
			hpa: newHPA(1, 10, cpuUtilization(50)), current: 3,
			setup: func(h *harness) { h.metrics.SetResource("cpu", cpuMetrics(100, 100, 100)) },
			want: wantDecision{reason: v2.ScaleDecisionRecommendationFailed, current: 3, desired: 3,
				metrics: []v2.HPAMetricScaleDecision{invalidMetric(0, v2.MetricScaleDecisionNoMatchingPods)}},
		},
		{
			name: "a CPU metric the metrics API does not serve failed to be fetched", opts: traceOn,
			hpa: newHPA(1, 10, cpuUtilization(50)), current: 3,
			want: wantDecision{reason: v2.ScaleDecisionRecommendationFailed, current: 3, desired: 3,
				metrics: []v2.HPAMetricScaleDecision{invalidMetric(0, v2.MetricScaleDecisionFetchFailed)}},
		},
		{
			name: "a CPU metric of pods without requests has an unusable value", opts: traceOn,
			hpa: newHPA(1, 10, cpuUtilization(50)), current: 3,
			setup: func(h *harness) {
				for i := range 3 {
					pod := readyPod(fmt.Sprintf("web-%d", i), 100, testStart.Add(-time.Hour))
					pod.Spec.Containers[0].Resources.Requests = nil
					h.addPod(pod)
				}
				h.metrics.SetResource("cpu", cpuMetrics(100, 100, 100))
			},
			want: wantDecision{reason: v2.ScaleDecisionRecommendationFailed, current: 3, desired: 3,
				metrics: []v2.HPAMetricScaleDecision{invalidMetric(0, v2.MetricScaleDecisionInvalidMetricValue)}},
		},
		{
			name: "above maxReplicas no metric is asked", opts: traceOn,
			hpa: newHPA(1, 10, queue), current: 12,
			want: wantDecision{reason: v2.ScaleDecisionReplicaLimit, current: 12, desired: 10,
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintMaxReplicas}},
		},
		{
			name: "below minReplicas no metric is asked", opts: traceOn,
			hpa: newHPA(2, 10, queue), current: 1,
			want: wantDecision{reason: v2.ScaleDecisionReplicaLimit, current: 1, desired: 2,
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintMinReplicas}},
		},
		{
			name: "a person's zero is a pause", opts: traceOn,
			hpa: newHPA(0, 10, queue), current: 0,
			want: wantDecision{reason: v2.ScaleDecisionScalingDisabled, current: 0, desired: 0},
		},
		{
			name: "taking the workload to zero is a reason of its own", opts: noDownscaleWindow(traceOn),
			hpa: newHPA(0, 10, queue), current: 2,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(0)},
			want: wantDecision{reason: v2.ScaleDecisionScaleToZero, current: 2, recommended: ptr.To[int32](0), desired: 0,
				metrics: []v2.HPAMetricScaleDecision{used(0, 0, v2.MetricScaleDecisionComputed)}},
		},
		{
			name: "coming back from the controller's zero is a reason of its own", opts: traceOn,
			hpa: withConditions(newHPA(0, 10, queue), scaledToZeroStatus(testStart.Add(-time.Hour))), current: 0,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(20000)},
			want: wantDecision{reason: v2.ScaleDecisionScaleFromZero, current: 0, recommended: ptr.To[int32](2), desired: 2,
				metrics: []v2.HPAMetricScaleDecision{used(0, 2, v2.MetricScaleDecisionComputed)}},
		},
		{
			name: "minReplicas raised over the controller's zero brings it back while the metrics fail", opts: traceOn,
			hpa: withConditions(newHPA(2, 10, queue), scaledToZeroStatus(testStart.Add(-time.Hour))), current: 0,
			answers: map[string]metricstest.ExternalAnswer{"queue": {Err: errBoom}},
			want: wantDecision{reason: v2.ScaleDecisionScaleFromZero, current: 0, desired: 2,
				metrics:     []v2.HPAMetricScaleDecision{invalidMetric(0, v2.MetricScaleDecisionFetchFailed)},
				constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintMinReplicas}},
		},
		{
			name: "a metric in fallback names its strategy", opts: withMoreGates(noDownscaleWindow(traceOn),
				features.HPAExternalMetricFallback, true, features.HPAExternalMetricFallbackStrategy, true),
			hpa: withBackMetric(strategyHPA(1, 10, v2.FallbackStrategyUseMax), backlog), current: 6,
			answers: map[string]metricstest.ExternalAnswer{"queue_depth": {Err: errBoom}, "backlog": extOK(30000)},
			want: wantDecision{reason: v2.ScaleDecisionMetricRecommendation, current: 6, recommended: ptr.To[int32](10), desired: 10,
				metrics: []v2.HPAMetricScaleDecision{used(0, 10, v2.MetricScaleDecisionFallbackUseMax), valid(1, 3, v2.MetricScaleDecisionComputed)}},
		},
		{
			name: "a metric in fallback under the default strategy says Static", opts: withMoreGates(noDownscaleWindow(traceOn),
				features.HPAExternalMetricFallback, true),
			hpa: strategyHPA(1, 20, ""), current: 12,
			answers: map[string]metricstest.ExternalAnswer{"queue_depth": {Err: errBoom}},
			want: wantDecision{reason: v2.ScaleDecisionMetricRecommendation, current: 12, recommended: ptr.To[int32](20), desired: 20,
				metrics: []v2.HPAMetricScaleDecision{used(0, 20, v2.MetricScaleDecisionFallbackStatic)}},
		},
		{
			name: "gate off: no decision", opts: traceOff,
			hpa: newHPA(1, 10, queue, backlog), current: 3,
			answers: map[string]metricstest.ExternalAnswer{"queue": extOK(40000), "backlog": extOK(20000)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.hpa.Generation = 7
			h := newHarness(t, tc.hpa, tc.opts)
			h.scales.setScale(tc.current, tc.current, testSelector)
			for name, a := range tc.answers {
				h.metrics.SetExternal(name, a)
			}
			if tc.setup != nil {
				tc.setup(h)
			}
			_ = h.reconcile(testHPAName)
			var want *v2.HorizontalPodAutoscalerScaleDecision
			if tc.want.reason != "" {
				want = tc.want.decision(7, testStart)
			}
			assertDecision(t, h.hpa(testHPAName), want)
		})
	}
}

// withBackMetric appends m to hpa's metrics.
func withBackMetric(hpa *v2.HorizontalPodAutoscaler, m v2.MetricSpec) *v2.HorizontalPodAutoscaler {
	hpa.Spec.Metrics = append(hpa.Spec.Metrics, m)
	return hpa
}

// TestDecisionTraceWrites pins when the decision is written: only when it
// changes in more than its time, never alone in steady state; a pass that
// reads no scale or an invalid spec keeps it; the gate off removes it.
func TestDecisionTraceWrites(t *testing.T) {
	steady := func(opts harnessOptions) *harness {
		h := newHarness(t, newHPA(1, 10, externalAverage("queue", "10")), opts)
		h.scales.setScale(3, 3, testSelector)
		h.metrics.SetExternal("queue", extOK(31000))
		h.mustReconcile()
		return h
	}
	t.Run("a pass deciding the same writes no status, however later", func(t *testing.T) {
		h := steady(traceOn)
		first := h.hpa(testHPAName).Status.LastScaleDecision.DeepCopy()
		writes := h.source.statusUpdates
		for range 3 {
			h.clock.Step(15 * time.Second)
			h.mustReconcile()
		}
		if h.source.statusUpdates != writes {
			t.Errorf("status writes = %d, want %d: the same decision must not be written again", h.source.statusUpdates, writes)
		}
		assertDecision(t, h.hpa(testHPAName), first)
	})
	t.Run("the gate adds no status write in steady state", func(t *testing.T) {
		on, off := steady(traceOn), steady(traceOff)
		for _, h := range []*harness{on, off} {
			h.clock.Step(15 * time.Second)
			h.mustReconcile()
		}
		if on.source.statusUpdates != off.source.statusUpdates {
			t.Errorf("status writes with the gate on = %d, off = %d", on.source.statusUpdates, off.source.statusUpdates)
		}
	})
	t.Run("a changed decision is written with the time of its pass", func(t *testing.T) {
		h := steady(traceOn)
		h.clock.Step(15 * time.Second)
		h.metrics.SetExternal("queue", extOK(50000))
		h.mustReconcile()
		got := h.hpa(testHPAName).Status.LastScaleDecision
		if got.Reason != v2.ScaleDecisionMetricRecommendation || got.DesiredReplicas != 5 || !got.Time.Time.Equal(testStart.Add(15*time.Second)) {
			t.Errorf("lastScaleDecision = %s, want the scale-up to 5 at +15s", describeDecision(got))
		}
	})
	t.Run("a pass that cannot read the scale keeps the decision", func(t *testing.T) {
		h := steady(traceOn)
		first := h.hpa(testHPAName).Status.LastScaleDecision.DeepCopy()
		h.scales.getErr = errBoom
		h.clock.Step(15 * time.Second)
		_ = h.reconcile(testHPAName)
		assertDecision(t, h.hpa(testHPAName), first)
	})
	t.Run("an invalid spec keeps the decision", func(t *testing.T) {
		h := steady(traceOn)
		first := h.hpa(testHPAName).Status.LastScaleDecision.DeepCopy()
		hpa := h.hpa(testHPAName)
		hpa.Spec.MaxReplicas = 0
		h.source.set(hpa)
		_ = h.reconcile(testHPAName)
		assertDecision(t, h.hpa(testHPAName), first)
	})
	t.Run("with the gate off a stored decision is removed", func(t *testing.T) {
		hpa := newHPA(1, 10, externalAverage("queue", "10"))
		hpa.Status.LastScaleDecision = wantDecision{reason: v2.ScaleDecisionWithinTolerance, current: 3, desired: 3}.decision(0, testStart.Add(-time.Hour))
		h := newHarness(t, hpa, traceOff)
		h.scales.setScale(3, 3, testSelector)
		h.metrics.SetExternal("queue", extOK(31000))
		h.mustReconcile()
		if d := h.hpa(testHPAName).Status.LastScaleDecision; d != nil {
			t.Errorf("lastScaleDecision = %s with the gate off, want none", describeDecision(d))
		}
	})
	t.Run("a native HPA, which cannot store a decision, gets none and no write for it", func(t *testing.T) {
		h := newHarness(t, nil, traceOn)
		h.source.name = "autoscaling/v2"
		h.addHPA(newHPA(1, 10, externalAverage("queue", "10")))
		h.scales.setScale(3, 3, testSelector)
		h.metrics.SetExternal("queue", extOK(31000))
		h.mustReconcile()
		writes := h.source.statusUpdates
		h.clock.Step(15 * time.Second)
		h.mustReconcile()
		if d := h.hpa(testHPAName).Status.LastScaleDecision; d != nil || h.source.statusUpdates != writes {
			t.Errorf("lastScaleDecision = %s, status writes %d after %d: want none and no write", describeDecision(d), h.source.statusUpdates, writes)
		}
	})
	t.Run("a decision for a new generation is written though the counts are the same", func(t *testing.T) {
		h := steady(traceOn)
		hpa := h.hpa(testHPAName)
		hpa.Generation = 2
		h.source.set(hpa)
		h.mustReconcile()
		if got := h.hpa(testHPAName).Status.LastScaleDecision.ObservedGeneration; got != 2 {
			t.Errorf("observedGeneration = %d, want 2", got)
		}
	})
}

// TestHeadline pins the precedence of the reasons: crossing zero first,
// then the step that acted last.
func TestHeadline(t *testing.T) {
	c := func(cs ...v2.HPAScaleDecisionConstraint) []v2.HPAScaleDecisionConstraint { return cs }
	cases := []struct {
		name             string
		current, desired int32
		constraints      []v2.HPAScaleDecisionConstraint
		want             v2.HPAScaleDecisionReason
	}{
		{"nothing changed the recommendation", 2, 5, nil, v2.ScaleDecisionMetricRecommendation},
		{"to zero whatever held it", 3, 0, c(v2.ScaleDecisionConstraintStabilization), v2.ScaleDecisionScaleToZero},
		{"from zero whatever raised it", 0, 2, c(v2.ScaleDecisionConstraintMinReplicas), v2.ScaleDecisionScaleFromZero},
		{"the bounds act after the policies", 2, 10, c(v2.ScaleDecisionConstraintScalingPolicy, v2.ScaleDecisionConstraintMaxReplicas), v2.ScaleDecisionReplicaLimit},
		{"the policies act after stabilization", 2, 4, c(v2.ScaleDecisionConstraintStabilization, v2.ScaleDecisionConstraintScalingPolicy), v2.ScaleDecisionPolicyLimited},
		{"stabilization acts after tolerance", 3, 5, c(v2.ScaleDecisionConstraintTolerance, v2.ScaleDecisionConstraintStabilization), v2.ScaleDecisionStabilized},
		{"tolerance alone keeps the count", 3, 3, c(v2.ScaleDecisionConstraintTolerance), v2.ScaleDecisionWithinTolerance},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := headline(tc.current, tc.desired, tc.constraints); got != tc.want {
				t.Errorf("headline = %s, want %s", got, tc.want)
			}
		})
	}
}
