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
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// Helpers shared by zero_test.go and fallback_test.go.

// wantCond is a condition as the tests check it: type, status and reason,
// and the message when it is set (it is checked where it matters).
type wantCond struct {
	Type    autoscalingv2.HorizontalPodAutoscalerConditionType
	Status  corev1.ConditionStatus
	Reason  string
	Message string
}

func (w wantCond) String() string { return string(w.Type) + "=" + string(w.Status) + "/" + w.Reason }

func condTrue(t autoscalingv2.HorizontalPodAutoscalerConditionType, reason string) wantCond {
	return wantCond{Type: t, Status: corev1.ConditionTrue, Reason: reason}
}

func condFalse(t autoscalingv2.HorizontalPodAutoscalerConditionType, reason string) wantCond {
	return wantCond{Type: t, Status: corev1.ConditionFalse, Reason: reason}
}

// assertConditions checks that the HPA has exactly the conditions want,
// in any order (checkConditions).
func assertConditions(t *testing.T, hpa *v2.HorizontalPodAutoscaler, want ...wantCond) {
	t.Helper()
	checkConditions(t, hpa.Status.Conditions, want)
}

// scaledToZeroStatus is the ScaledToZero=True condition that this
// controller records when it takes a workload to zero.
func scaledToZeroStatus(at time.Time) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{
		Type: v2.ScaledToZero, Status: corev1.ConditionTrue, Reason: "ScaledToZero",
		Message: "the HPA controller scaled the workload to zero", LastTransitionTime: metav1.NewTime(at),
	}
}

func withConditions(hpa *v2.HorizontalPodAutoscaler, conds ...autoscalingv2.HorizontalPodAutoscalerCondition) *v2.HorizontalPodAutoscaler {
	hpa.Status.Conditions = append(hpa.Status.Conditions, conds...)
	return hpa
}

func withBehavior(hpa *v2.HorizontalPodAutoscaler, b *v2.HorizontalPodAutoscalerBehavior) *v2.HorizontalPodAutoscaler {
	hpa.Spec.Behavior = b
	return hpa
}

// describedQueue is the object the Object metrics of these tests describe.
var describedQueue = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "queue"}

func objectValue(name, value string) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &v2.ObjectMetricSource{
			DescribedObject: describedQueue,
			Metric:          v2.MetricIdentifier{Name: name},
			Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr.To(resource.MustParse(value))},
		},
	}
}

func objectAverage(name, averageValue string) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &v2.ObjectMetricSource{
			DescribedObject: describedQueue,
			Metric:          v2.MetricIdentifier{Name: name},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType,
				AverageValue: ptr.To(resource.MustParse(averageValue))},
		},
	}
}

func withSelector(m v2.MetricSpec, matchLabels map[string]string) v2.MetricSpec {
	m.External.Metric.Selector = &metav1.LabelSelector{MatchLabels: matchLabels}
	return m
}

// ext is a successful external metric answer of the given milli-values.
func extOK(milliValues ...int64) metricstest.ExternalAnswer {
	return metricstest.ExternalAnswer{Values: milliValues, Timestamp: testStart}
}

func objOK(milliValue int64) metricstest.ObjectAnswer {
	return metricstest.ObjectAnswer{Value: milliValue, Timestamp: testStart}
}

// gates returns harness options with the given gates.
func withGates(kv ...any) harnessOptions {
	g := map[featuregate.Feature]bool{}
	for i := 0; i < len(kv); i += 2 {
		g[kv[i].(featuregate.Feature)] = kv[i+1].(bool)
	}
	return harnessOptions{gates: g}
}

func noDownscaleWindow(o harnessOptions) harnessOptions {
	o.downscaleStabilizationWindow = ptr.To(time.Duration(0))
	return o
}

var (
	fallbackOn  = withGates(features.HPAExternalMetricFallback, true)
	fallbackOff = withGates(features.HPAExternalMetricFallback, false)
)

// externalStatusOf returns the status entry of the External metric name,
// failing the test when there is none.
func externalStatusOf(t *testing.T, hpa *v2.HorizontalPodAutoscaler, name string) *v2.ExternalMetricStatus {
	t.Helper()
	for _, m := range hpa.Status.CurrentMetrics {
		if m.Type == autoscalingv2.ExternalMetricSourceType && m.External != nil && m.External.Metric.Name == name {
			return m.External
		}
	}
	t.Fatalf("no status entry for external metric %q in %+v", name, hpa.Status.CurrentMetrics)
	return nil
}

// assertFallbackStatus checks one External metric's fallback state:
// fallbackStatus and firstFailureTime (nil when firstFailure is zero).
func assertFallbackStatus(t *testing.T, hpa *v2.HorizontalPodAutoscaler, name string, status v2.FallbackStatus, firstFailure time.Time) {
	t.Helper()
	s := externalStatusOf(t, hpa, name)
	if s.FallbackStatus != status {
		t.Errorf("%s: fallbackStatus = %q, want %q", name, s.FallbackStatus, status)
	}
	switch {
	case firstFailure.IsZero() && s.FirstFailureTime != nil:
		t.Errorf("%s: firstFailureTime = %v, want nil", name, s.FirstFailureTime)
	case !firstFailure.IsZero() && s.FirstFailureTime == nil:
		t.Errorf("%s: firstFailureTime = nil, want %v", name, firstFailure)
	case !firstFailure.IsZero() && !s.FirstFailureTime.Time.Equal(firstFailure):
		t.Errorf("%s: firstFailureTime = %v, want %v", name, s.FirstFailureTime.Time, firstFailure)
	}
}

// mustReconcile runs a pass that must succeed.
func (h *harness) mustReconcile() {
	h.t.Helper()
	if err := h.reconcile(testHPAName); err != nil {
		h.t.Fatalf("reconcile: %v", err)
	}
}

// reconcileFails runs a pass that must fail.
func (h *harness) reconcileFails() error {
	h.t.Helper()
	err := h.reconcile(testHPAName)
	if err == nil {
		h.t.Fatal("reconcile succeeded, want an error")
	}
	return err
}

// assertEvents drains the recorded events and compares them with want, in
// order. A wanted event "Type Reason ~text" matches any event of that type
// and reason whose message contains text: events whose wording belongs to
// other steps (metric fetch errors) are matched on their cause only.
func (h *harness) assertEvents(want ...string) {
	h.t.Helper()
	got := h.events()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = eventMatches(got[i], want[i])
	}
	if !ok {
		h.t.Errorf("events =\n  %q\nwant\n  %q", got, want)
	}
}

func eventMatches(got, want string) bool {
	head, text, loose := strings.Cut(want, " ~")
	if !loose {
		return got == want
	}
	return strings.HasPrefix(got, head+" ") && strings.Contains(got[len(head)+1:], text)
}

// eventsWithReason drains the recorded events and returns those whose
// reason is reason.
func (h *harness) eventsWithReason(reason string) []string {
	var out []string
	for _, e := range h.events() {
		if eventReason(e) == reason {
			out = append(out, e)
		}
	}
	return out
}

func eventReason(e string) string {
	parts := strings.SplitN(e, " ", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// assertUpdates checks the replica counts written to the scale, in order.
func (h *harness) assertUpdates(want ...int32) {
	h.t.Helper()
	h.scales.mu.Lock()
	got := slices.Clone(h.scales.updates)
	h.scales.mu.Unlock()
	if !slices.Equal(got, want) {
		h.t.Errorf("scale updates = %v, want %v", got, want)
	}
}

// resetUpdates forgets the scale updates made so far.
func (h *harness) resetUpdates() {
	h.scales.mu.Lock()
	h.scales.updates = nil
	h.scales.mu.Unlock()
}

// drainQueue takes every ready key off the controller's queue.
func (h *harness) drainQueue() {
	for h.c.queue.Len() > 0 {
		key, _ := h.c.queue.Get()
		h.c.queue.Done(key)
	}
}

// waitQueued waits (in real time, for the delaying queue's goroutine to
// move a key whose fake-clock time has come) until the queue holds a ready
// key, and reports whether it did.
func (h *harness) waitQueued() bool {
	err := wait.PollUntilContextTimeout(h.ctx, time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return h.c.queue.Len() > 0, nil
	})
	return err == nil
}
