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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// The fallback deadline: when it is due, the wake-up a pass asks for, and
// the first failure persisted across a restart.

// passWakeAt decides a pass (without recording it) and returns the
// wake-up its outcome asks for.
func (h *harness) passWakeAt() time.Time {
	h.t.Helper()
	shared, ok, _ := h.source.Get(testNamespace, testHPAName)
	if !ok {
		h.t.Fatal("HPA not found")
	}
	p := h.c.newPass(h.ctx, h.source, shared, h.key(testHPAName))
	if out, valid := p.checkSpec(); !valid {
		h.t.Fatalf("checkSpec: %v", out.err)
	}
	return p.decide().wakeAt
}

// TestFallbackDeadline pins "due when now - firstFailureTime >=
// failureDurationSeconds": exactly at the deadline the fallback applies, a
// moment before the metric is invalid and the pass asks to be woken at the
// deadline.
func TestFallbackDeadline(t *testing.T) {
	cases := []struct {
		name     string
		duration int64
		elapsed  time.Duration
		due      bool
	}{
		{name: "due exactly at failureDurationSeconds", duration: 180, elapsed: 180 * time.Second, due: true},
		{name: "due after failureDurationSeconds", duration: 180, elapsed: 181 * time.Second, due: true},
		{name: "not due 1ns before the deadline", duration: 180, elapsed: 180*time.Second - time.Nanosecond},
		{name: "not due 1s before the deadline", duration: 180, elapsed: 179 * time.Second},
		{name: "not due 10s before the deadline", duration: 180, elapsed: 170 * time.Second},
		{name: "a longer failureDurationSeconds is due exactly at its end", duration: 600, elapsed: 600 * time.Second, due: true},
		{name: "a longer failureDurationSeconds is not due a second before", duration: 600, elapsed: 599 * time.Second},
		{name: "a longer failureDurationSeconds is not due at the default", duration: 600, elapsed: 180 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 20, withFallback(externalAverage("queue_depth", "10"), tc.duration, 10)), fallbackOn)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
			h.reconcileFails()
			h.events()

			h.clock.Step(tc.elapsed)
			deadline := testStart.Add(time.Duration(tc.duration) * time.Second)
			if tc.due {
				h.mustReconcile()
				h.assertUpdates(10)
				hpa := h.hpa(testHPAName)
				assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusFallback, testStart)
				assertConditions(t, hpa, notScaledTo0, rescaled, validMetric, withinRange, fallbackActive)
				if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 1 {
					t.Errorf("activation events = %q, want one", got)
				}
				return
			}
			h.reconcileFails()
			h.assertUpdates()
			hpa := h.hpa(testHPAName)
			assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusNormal, testStart)
			assertConditions(t, hpa, gotScale, failedExternal, noFallbackActive)
			if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 0 {
				t.Errorf("activation events = %q, want none", got)
			}
			if got := h.passWakeAt(); !got.Equal(deadline) {
				t.Errorf("wakeAt = %v, want the deadline %v", got, deadline)
			}
		})
	}
}

// TestFallbackWakesAtDeadline checks that a pass shortly before the
// deadline puts the HPA back on the queue for the deadline itself, so the
// fallback does not wait for the next sync period.
func TestFallbackWakesAtDeadline(t *testing.T) {
	h := newHarness(t, newHPA(1, 20, queueDepth()), fallbackOn)
	h.scales.setScale(5, 5, testSelector)
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
	h.reconcileFails()

	// The key queued when the HPA was added comes due at +15 s; take it.
	h.clock.SetTime(testStart.Add(175 * time.Second))
	if !h.waitQueued() {
		t.Fatal("the HPA's periodic key never became ready")
	}
	h.drainQueue()

	// 5 s before the deadline, within a sync period of it: a pass through
	// the worker, which queues the HPA's next pass.
	h.c.queue.Add(h.key(testHPAName))
	if !h.c.processNextWorkItem(h.ctx) {
		t.Fatal("processNextWorkItem = false")
	}
	h.c.inFlight.Wait()
	if n := h.c.queue.Len(); n != 0 {
		t.Fatalf("queue holds %d ready keys before the deadline, want 0", n)
	}
	h.clock.SetTime(testStart.Add(180*time.Second - time.Nanosecond))
	if n := h.c.queue.Len(); n != 0 {
		t.Fatalf("queue holds %d ready keys 1ns before the deadline, want 0", n)
	}
	h.clock.SetTime(testStart.Add(180 * time.Second))
	if !h.waitQueued() {
		t.Fatal("the HPA was not queued at the fallback deadline")
	}
	key, _ := h.c.queue.Get()
	h.c.queue.Done(key)
	if key != h.key(testHPAName) {
		t.Errorf("queued key = %v, want %v", key, h.key(testHPAName))
	}
	h.mustReconcile()
	h.assertUpdates(10)
}

// TestFallbackWakeBeyondSyncPeriod: a deadline further away than a sync
// period is left to the periodic requeue.
func TestFallbackWakeBeyondSyncPeriod(t *testing.T) {
	h := newHarness(t, newHPA(1, 20, queueDepth()), fallbackOn)
	h.scales.setScale(5, 5, testSelector)
	h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
	if got, want := h.passWakeAt(), testStart.Add(180*time.Second); !got.Equal(want) {
		t.Errorf("wakeAt = %v, want %v", got, want)
	}
	// Take the key queued at add time (due at +15 s); nothing else may come.
	h.clock.SetTime(testStart.Add(15 * time.Second))
	if !h.waitQueued() {
		t.Fatal("the HPA's periodic key never became ready")
	}
	h.drainQueue()
	h.clock.SetTime(testStart.Add(30 * time.Second))
	if n := h.c.queue.Len(); n != 0 {
		t.Errorf("queue holds %d ready keys, want 0 (the deadline is 150 s away)", n)
	}
}

// persistedFailure is a status entry as an earlier controller wrote it.
func persistedFailure(name string, selector *metav1.LabelSelector, status v2.FallbackStatus, firstFailure time.Time) v2.MetricStatus {
	t := metav1.NewTime(firstFailure)
	return v2.MetricStatus{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricStatus{
			Metric:           v2.MetricIdentifier{Name: name, Selector: selector},
			FallbackStatus:   status,
			FirstFailureTime: &t,
		},
	}
}

func withStatusMetrics(hpa *v2.HorizontalPodAutoscaler, metrics ...v2.MetricStatus) *v2.HorizontalPodAutoscaler {
	hpa.Status.CurrentMetrics = metrics
	return hpa
}

// TestFallbackAfterRestart: firstFailureTime lives in status, so a new
// controller (a new harness: no in-memory state) honors it on its first
// pass.
func TestFallbackAfterRestart(t *testing.T) {
	cases := []struct {
		name          string
		status        v2.FallbackStatus
		firstFailure  time.Duration // before testStart
		wantUpdates   []int32
		wantStatus    v2.FallbackStatus
		wantActivated bool
		wantWake      time.Time
	}{
		{
			name: "a failure 200s old is due on the first pass", status: v2.FallbackStatusNormal, firstFailure: 200 * time.Second,
			wantUpdates: []int32{10}, wantStatus: v2.FallbackStatusFallback, wantActivated: true,
		},
		{
			name: "a metric already in fallback stays in it without a second activation event", status: v2.FallbackStatusFallback,
			firstFailure: 600 * time.Second, wantUpdates: []int32{10}, wantStatus: v2.FallbackStatusFallback,
		},
		{
			name: "a failure 170s old is not due yet, and the pass wakes at its deadline", status: v2.FallbackStatusNormal,
			firstFailure: 170 * time.Second, wantStatus: v2.FallbackStatusNormal, wantWake: testStart.Add(10 * time.Second),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			first := testStart.Add(-tc.firstFailure)
			hpa := withStatusMetrics(newHPA(1, 20, queueDepth()), persistedFailure("queue_depth", nil, tc.status, first))
			h := newHarness(t, hpa, fallbackOn)
			h.scales.setScale(5, 5, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: metrics.ErrNoMetrics})

			if !tc.wantWake.IsZero() {
				if got := h.passWakeAt(); !got.Equal(tc.wantWake) {
					t.Errorf("wakeAt = %v, want %v", got, tc.wantWake)
				}
				h.events()
			}
			err := h.reconcile(testHPAName)
			if (err != nil) != (tc.wantUpdates == nil) {
				t.Errorf("reconcile error = %v", err)
			}
			h.assertUpdates(tc.wantUpdates...)
			assertFallbackStatus(t, h.hpa(testHPAName), "queue_depth", tc.wantStatus, first)
			got := h.eventsWithReason("ExternalMetricFallbackActivated")
			if tc.wantActivated && (len(got) != 1 || got[0] != activatedQueueDepth) {
				t.Errorf("activation events = %q, want [%q]", got, activatedQueueDepth)
			}
			if !tc.wantActivated && len(got) != 0 {
				t.Errorf("activation events = %q, want none", got)
			}
		})
	}
}
