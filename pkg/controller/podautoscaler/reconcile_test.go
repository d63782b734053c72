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
	"strings"
	"testing"

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
