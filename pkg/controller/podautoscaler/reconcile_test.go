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

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

func TestReconcileScalesUpOnCPUUtilization(t *testing.T) {
	h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
	h.scales.setScale(3, 3, testSelector)
	h.addPods(3, 100)
	h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(100, 100, 100))

	if err := h.reconcile(testHPAName); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if got := h.scales.replicas(); got != 6 {
		t.Errorf("replicas = %d, want 6 (200%% of a 50%% target doubles 3 pods)", got)
	}
	hpa := h.hpa(testHPAName)
	if hpa.Status.CurrentReplicas != 3 || hpa.Status.DesiredReplicas != 6 {
		t.Errorf("status current/desired = %d/%d, want 3/6", hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas)
	}
	if c := conditionOf(t, hpa, autoscalingv2.AbleToScale); c.Reason != "SucceededRescale" {
		t.Errorf("AbleToScale reason = %s, want SucceededRescale", c.Reason)
	}
	if c := conditionOf(t, hpa, autoscalingv2.ScalingActive); c.Status != corev1.ConditionTrue || c.Reason != "ValidMetricFound" {
		t.Errorf("ScalingActive = %s/%s, want True/ValidMetricFound", c.Status, c.Reason)
	}
	events := h.events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Normal SuccessfulRescale New size: 6; reason: cpu resource utilization (percentage of request) above target") {
		t.Errorf("events = %q", events)
	}
	if got := h.monitor.reconciliations; len(got) != 1 || got[0] != "scale_up/none" {
		t.Errorf("reconciliations = %v", got)
	}
}

func TestReconcileExternalFailureWithoutFallbackBlocksScaling(t *testing.T) {
	h := newHarness(t, newHPA(1, 10, externalValue("queue", "10")), harnessOptions{})
	h.scales.setScale(3, 3, testSelector)
	h.metrics.SetExternal("queue", metricstest.ExternalAnswer{Err: errBoom})

	err := h.reconcile(testHPAName)
	if err == nil {
		t.Fatal("reconcile succeeded, want the metric error")
	}
	if len(h.scales.updates) != 0 {
		t.Errorf("scale updated to %v, want no update", h.scales.updates)
	}
	hpa := h.hpa(testHPAName)
	if c := conditionOf(t, hpa, autoscalingv2.ScalingActive); c.Status != corev1.ConditionFalse || c.Reason != "FailedGetExternalMetric" {
		t.Errorf("ScalingActive = %s/%s, want False/FailedGetExternalMetric", c.Status, c.Reason)
	}
}

// TestPassStamps: a pass whose provider takes 2s to answer stamps what it
// decided on the clock its next pass is scheduled on. Unspread, the next
// pass counts its period from this one's end, as upstream's does, so the
// pass stamps its scale when it wrote it and its conditions when the
// metrics answered, as upstream does: a 15s policy then still holds a pass
// 16s after the slow one's start. Spread, the next pass comes at the slot
// one period after the start, so the pass stamps its start and the next
// slot takes the policy's next step.
func TestPassStamps(t *testing.T) {
	const fetch = 2 * time.Second
	cases := []struct {
		name           string
		opts           harnessOptions
		next           time.Duration
		wantUpdates    []int32
		wantStamp      time.Duration
		wantActiveFrom time.Duration
	}{
		{name: "unspread, a slow pass stamps its scale and its metrics' conditions when they happened",
			next: 16 * time.Second, wantUpdates: []int32{4}, wantStamp: fetch, wantActiveFrom: fetch},
		{name: "unspread, the pass a period after the slow one's end takes the next step",
			next: 17 * time.Second, wantUpdates: []int32{4, 5}, wantStamp: fetch, wantActiveFrom: fetch},
		{name: "spread, a slow pass stamps its start so that the next slot takes the next step", opts: spreadOn,
			next: 15 * time.Second, wantUpdates: []int32{4, 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withBehavior(newHPA(1, 10, cpuUtilization(50)), onePodPer15s), tc.opts)
			h.scales.setScale(3, 3, testSelector)
			h.addPods(3, 100)
			h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(100, 100, 100))
			start := h.clock.Now()
			h.metrics.SetHook(func(context.Context, metricstest.Request) error {
				h.clock.Step(fetch)
				return nil
			})
			if err := h.reconcile(testHPAName); err != nil {
				t.Fatal(err)
			}
			hpa := h.hpa(testHPAName)
			if got := hpa.Status.LastScaleTime.Sub(start); got != tc.wantStamp {
				t.Errorf("lastScaleTime = start+%v, want start+%v", got, tc.wantStamp)
			}
			// The target's scale was read before the fetch: that condition
			// keeps the pass's start.
			if got := conditionOf(t, hpa, autoscalingv2.AbleToScale).LastTransitionTime.Sub(start); got != 0 {
				t.Errorf("AbleToScale's transition = start+%v, want the start", got)
			}
			if got := conditionOf(t, hpa, autoscalingv2.ScalingActive).LastTransitionTime.Sub(start); got != tc.wantActiveFrom {
				t.Errorf("ScalingActive's transition = start+%v, want start+%v", got, tc.wantActiveFrom)
			}
			h.metrics.SetHook(nil)
			h.clock.SetTime(start.Add(tc.next))
			if err := h.reconcile(testHPAName); err != nil {
				t.Fatal(err)
			}
			h.assertUpdates(tc.wantUpdates...)
		})
	}
}
