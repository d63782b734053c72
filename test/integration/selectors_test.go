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

package integration

import (
	"context"
	"fmt"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// The controller keeps each HPA's answer to "does another HPA select my
// pods?" until a pod or selector it depends on changes. Here the changes
// come through the real API server's watch: a pod labeled into a second
// HPA's selection makes the first HPA's selector ambiguous, and labeling it
// back out ends that.
func TestAmbiguousSelectorFollowsPodLabels(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "web", 1)
	createWorkloadSelecting(ctx, t, kube, ns, "frontend", 1, map[string]string{"tier": "frontend"})
	createLabeledPod(ctx, t, kube, ns, "web-1", map[string]string{"app": "web"})
	createLabeledPod(ctx, t, kube, ns, "web-2", map[string]string{"app": "web"})

	fake := metricstest.NewClient().
		SetExternal("queue_web", metricstest.ExternalAnswer{Values: []int64{10000}}).
		SetExternal("queue_frontend", metricstest.ExternalAnswer{Values: []int64{10000}})
	env := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate()})
	for _, name := range []string{"web", "frontend"} {
		if _, err := hpas.Create(ctx, externalHPA(ns, name, 10, nil)); err != nil {
			t.Fatal(err)
		}
	}
	scalingActive := func(want corev1.ConditionStatus, reason string) func() (string, bool) {
		return func() (string, bool) {
			hpa, err := hpas.Get(ctx, ns, "web")
			if err != nil {
				return err.Error(), false
			}
			c := findCondition(hpa, autoscalingv2.ScalingActive)
			if c == nil {
				return "no ScalingActive condition", false
			}
			return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message), c.Status == want && c.Reason == reason
		}
	}

	env.until(t, "the web HPA is active", scalingActive(corev1.ConditionTrue, "ValidMetricFound"))
	relabel(ctx, t, kube, ns, "web-2", `{"metadata":{"labels":{"tier":"frontend"}}}`)
	env.until(t, "the web HPA's selector is ambiguous", scalingActive(corev1.ConditionFalse, "AmbiguousSelector"))
	relabel(ctx, t, kube, ns, "web-2", `{"metadata":{"labels":{"tier":null}}}`)
	env.until(t, "the web HPA is active again", scalingActive(corev1.ConditionTrue, "ValidMetricFound"))
}

func createLabeledPod(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string, podLabels map[string]string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: podLabels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
	}
	if _, err := kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s: %v", name, err)
	}
}

func relabel(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name, patch string) {
	t.Helper()
	if _, err := kube.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("relabeling pod %s: %v", name, err)
	}
}
