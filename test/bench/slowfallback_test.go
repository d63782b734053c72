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

package bench

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func TestFallbackLateness(t *testing.T) {
	due := time.Date(2026, 12, 1, 12, 3, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return due.Add(d) }
	tests := []struct {
		name string
		seen map[string]time.Time
		want int
		// wanted figures, in seconds
		wantP50, wantMax float64
		wantMissed       int
	}{
		{
			name:    "every slow HPA seen: the median and the latest of their delays after due",
			seen:    map[string]time.Time{"a": at(2 * time.Second), "b": at(14 * time.Second), "c": at(8 * time.Second)},
			want:    3,
			wantP50: 8, wantMax: 14,
		},
		{
			name:    "HPAs never seen count as missed, not as late",
			seen:    map[string]time.Time{"a": at(3 * time.Second)},
			want:    4,
			wantP50: 3, wantMax: 3, wantMissed: 3,
		},
		{
			name:    "a fallback seen before it was due counts as early",
			seen:    map[string]time.Time{"a": at(-5 * time.Second), "b": at(-time.Second)},
			want:    2,
			wantP50: -5, wantMax: -1,
		},
		{
			name: "none seen", want: 2, wantMissed: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fallbackLateness(due, tc.seen, tc.want)
			if got.Measured != len(tc.seen) || got.Missed != tc.wantMissed || got.P50 != tc.wantP50 || got.Max != tc.wantMax {
				t.Errorf("lateness %+v, want %d measured, %d missed, p50 %vs, max %vs", got, len(tc.seen), tc.wantMissed, tc.wantP50, tc.wantMax)
			}
		})
	}
}

func TestFallbackActive(t *testing.T) {
	cond := func(typ autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus) autoscalingv2.HorizontalPodAutoscalerCondition {
		return autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: status}
	}
	tests := []struct {
		name       string
		conditions []autoscalingv2.HorizontalPodAutoscalerCondition
		want       bool
	}{
		{name: "no conditions yet", want: false},
		{name: "the fallback condition True", conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			cond(autoscalingv2.AbleToScale, corev1.ConditionTrue), cond(v2.ExternalMetricFallbackActive, corev1.ConditionTrue)}, want: true},
		{name: "the fallback condition False while the metric still counts its failures", conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			cond(v2.ExternalMetricFallbackActive, corev1.ConditionFalse)}, want: false},
		{name: "another condition True is no fallback", conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			cond(autoscalingv2.ScalingActive, corev1.ConditionTrue)}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fallbackActive(tc.conditions); got != tc.want {
				t.Errorf("fallback active %t, want %t", got, tc.want)
			}
		})
	}
}

func TestFallbackWatchRecordsTheFirstActiveStatusOfEachSlowHPA(t *testing.T) {
	w := &fallbackWatch{want: map[string]bool{"w-00019": true, "w-00039": true}, seen: map[string]time.Time{}, all: make(chan struct{})}
	withStatus := func(name string, status corev1.ConditionStatus) *v2.HorizontalPodAutoscaler {
		h := &v2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace}}
		h.Status.Conditions = []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: v2.ExternalMetricFallbackActive, Status: status}}
		return h
	}
	steps := []struct {
		name     string
		obj      any
		wantSeen []string
		wantAll  bool
	}{
		{name: "a slow HPA still counting its failures is not seen", obj: withStatus("w-00019", corev1.ConditionFalse)},
		{name: "a healthy HPA's status is not watched", obj: withStatus("w-00001", corev1.ConditionTrue)},
		{name: "the first slow HPA in fallback", obj: withStatus("w-00019", corev1.ConditionTrue), wantSeen: []string{"w-00019"}},
		{name: "a later update keeps its first time", obj: withStatus("w-00019", corev1.ConditionTrue), wantSeen: []string{"w-00019"}},
		{name: "an object of another type is ignored", obj: &autoscalingv2.HorizontalPodAutoscaler{}, wantSeen: []string{"w-00019"}},
		{name: "the last slow HPA ends the wait", obj: withStatus("w-00039", corev1.ConditionTrue), wantSeen: []string{"w-00019", "w-00039"}, wantAll: true},
	}
	var first time.Time
	for _, step := range steps {
		w.observe(step.obj)
		var names []string
		for _, n := range []string{"w-00019", "w-00039"} {
			if _, ok := w.seen[n]; ok {
				names = append(names, n)
			}
		}
		if diff := cmp.Diff(step.wantSeen, names); diff != "" {
			t.Errorf("%s: seen (-want +got):\n%s", step.name, diff)
		}
		if at, ok := w.seen["w-00019"]; ok {
			if first.IsZero() {
				first = at
			} else if !at.Equal(first) {
				t.Errorf("%s: first seen at %v, then at %v", step.name, first, at)
			}
		}
		select {
		case <-w.all:
			if !step.wantAll {
				t.Errorf("%s: the wait ended before every slow HPA was seen", step.name)
			}
		default:
			if step.wantAll {
				t.Errorf("%s: the wait did not end", step.name)
			}
		}
	}
}

func TestSlowExtendedHPAHasTheFallbackAtItsSteadyReplicas(t *testing.T) {
	o := NewOptions()
	o.HPAs, o.LatencyHPAs, o.DistinctMetrics, o.SlowHPAs, o.SlowMode, o.FallbackAfter = 100, 10, true, 5, SlowModeMidRun, 4*time.Minute
	i := slowHPAIndexes(o)[0]
	h := slowExtendedHPA(i, o)
	if h.APIVersion != v2.SchemeGroupVersion.String() || h.Kind != "HorizontalPodAutoscaler" || h.Name != workloadName(i) || h.Namespace != o.namespaceOf(i) {
		t.Errorf("object %s %s %s/%s", h.APIVersion, h.Kind, h.Namespace, h.Name)
	}
	native := hpa(i, o)
	if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].External == nil {
		t.Fatalf("metrics %+v, want the one External metric", h.Spec.Metrics)
	}
	ext := h.Spec.Metrics[0].External
	if ext.Metric.Name != metricSlow || !cmp.Equal(ext.Metric.Selector, native.Spec.Metrics[0].External.Metric.Selector) || !cmp.Equal(ext.Target, native.Spec.Metrics[0].External.Target) {
		t.Errorf("external metric %+v, want the native HPA's %+v", ext, native.Spec.Metrics[0].External)
	}
	want := &v2.ExternalMetricFallback{FailureDurationSeconds: ptr.To(int64(240)), Replicas: int32(o.podsPerHPA()), Strategy: v2.FallbackStrategyStatic}
	if diff := cmp.Diff(want, ext.Fallback); diff != "" {
		t.Errorf("fallback (-want +got):\n%s", diff)
	}
	if *h.Spec.MinReplicas != *native.Spec.MinReplicas || h.Spec.MaxReplicas != native.Spec.MaxReplicas || h.Spec.ScaleTargetRef != native.Spec.ScaleTargetRef {
		t.Errorf("spec %+v, want the native HPA's bounds and target", h.Spec)
	}
}
