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
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// zeroHPA is an HPA that may scale name to zero on an AverageValue External
// metric (10 per replica), which needs no pods to propose a count.
func zeroHPA(ns, name string, minReplicas int32) *v2.HorizontalPodAutoscaler {
	target := resource.MustParse("10")
	hpa := externalHPA(ns, name, 10, nil)
	hpa.Spec.MinReplicas = ptr.To(minReplicas)
	hpa.Spec.Metrics[0].External.Target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &target}
	return hpa
}

// scaleByHand sets the Deployment's replicas as a person would.
func scaleByHand(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string, replicas int32) {
	t.Helper()
	s := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
	if _, err := kube.AppsV1().Deployments(ns).UpdateScale(ctx, name, s, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("scaling %s to %d: %v", name, replicas, err)
	}
}

// setMinReplicas edits the HPA's spec as kubectl patch would.
func setMinReplicas(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, ns, name string, minReplicas int32) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"minReplicas":%d}}`, minReplicas)
	_, err := dynamic.NewForConfigOrDie(cluster.RESTConfig()).Resource(v2.SchemeGroupVersion.WithResource(v2.Resource)).
		Namespace(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("setting minReplicas: %v", err)
	}
}

func scaledToZero(ctx context.Context, hpas *hpaclient.Client, ns, name string) (string, bool) {
	hpa, err := hpas.Get(ctx, ns, name)
	if err != nil {
		return err.Error(), false
	}
	c := findCondition(hpa, v2.ScaledToZero)
	return fmt.Sprintf("ScaledToZero %+v", c), c != nil && c.Status == corev1.ConditionTrue
}

// TestRaisedMinReplicasBringsBackTheControllersZeroWhileMetricsFail: the
// rollback advice of docs/scale-to-zero.md holds when the metrics are down too.
func TestRaisedMinReplicasBringsBackTheControllersZeroWhileMetricsFail(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "idle", 2)
	fake := metricstest.NewClient().SetExternal("queue_idle", metricstest.ExternalAnswer{Values: []int64{0}})
	env := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate()})
	if _, err := hpas.Create(ctx, zeroHPA(ns, "idle", 0)); err != nil {
		t.Fatal(err)
	}
	env.until(t, "the HPA scales the Deployment to zero", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, "idle")
		last, ok := scaledToZero(ctx, hpas, ns, "idle")
		return fmt.Sprintf("replicas %d, %s", got, last), got == 0 && ok
	})

	fake.SetExternal("queue_idle", metricstest.ExternalAnswer{Err: fmt.Errorf("provider down")})
	setMinReplicas(ctx, t, cluster, ns, "idle", 2)
	env.until(t, "the raised minimum brings the Deployment back to 2", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, "idle")
		return fmt.Sprintf("replicas %d", got), got == 2
	})
}

// TestManualZeroAfterManualScaleUpIsAPause: once a person scales the HPA's
// zero back up, ScaledToZero is cleared, so the person's later zero is a
// pause the HPA does not undo, even with demand.
func TestManualZeroAfterManualScaleUpIsAPause(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "batch", 2)
	fake := metricstest.NewClient().SetExternal("queue_batch", metricstest.ExternalAnswer{Values: []int64{0}})
	first := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate()})
	if _, err := hpas.Create(ctx, zeroHPA(ns, "batch", 0)); err != nil {
		t.Fatal(err)
	}
	first.until(t, "the HPA scales the Deployment to zero", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, "batch")
		last, ok := scaledToZero(ctx, hpas, ns, "batch")
		return fmt.Sprintf("replicas %d, %s", got, last), got == 0 && ok
	})
	first.stop()

	// With the controller stopped (so no pass sees half of the change), a
	// person scales up to 3, which the demand then agrees with.
	scaleByHand(ctx, t, kube, ns, "batch", 3)
	fake.SetExternal("queue_batch", metricstest.ExternalAnswer{Values: []int64{30000}})
	second := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate()})
	second.until(t, "ScaledToZero is cleared at 3 replicas", func() (string, bool) {
		last, on := scaledToZero(ctx, hpas, ns, "batch")
		return last, !on && deploymentReplicas(ctx, kube, ns, "batch") == 3
	})

	scaleByHand(ctx, t, kube, ns, "batch", 0)
	second.until(t, "the HPA reports the pause", func() (string, bool) {
		hpa, err := hpas.Get(ctx, ns, "batch")
		if err != nil {
			return err.Error(), false
		}
		c := findCondition(hpa, autoscalingv2.ScalingActive)
		return fmt.Sprintf("ScalingActive %+v", c), c != nil && c.Reason == "ScalingDisabled"
	})
	for range 4 {
		second.clock.Step(syncPeriod)
		time.Sleep(300 * time.Millisecond)
	}
	if got := deploymentReplicas(ctx, kube, ns, "batch"); got != 0 {
		t.Errorf("replicas = %d after the person's zero, want 0 (a pause)", got)
	}
}

// TestFallbackSurvivesAPauseThroughTheAPIServer: a metric in fallback stays
// in fallback, with its first failure, through passes paused at zero; when
// the person resumes, the fallback applies at once.
func TestFallbackSurvivesAPauseThroughTheAPIServer(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "payments", 1)
	gates := features.NewFeatureGate()
	if err := gates.SetFromMap(map[string]bool{string(features.HPAExternalMetricFallback): true}); err != nil {
		t.Fatal(err)
	}
	failing := metricstest.NewClient().SetExternal("queue_payments", metricstest.ExternalAnswer{Err: fmt.Errorf("provider down")})
	fallback := &v2.ExternalMetricFallback{FailureDurationSeconds: ptr.To[int64](180), Replicas: 4}
	if _, err := hpas.Create(ctx, externalHPA(ns, "payments", 10, fallback)); err != nil {
		t.Fatal(err)
	}
	env := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: failing, gates: gates})
	var firstFailure time.Time
	inFallback := func() (string, bool) {
		hpa, err := hpas.Get(ctx, ns, "payments")
		if err != nil || len(hpa.Status.CurrentMetrics) != 1 || hpa.Status.CurrentMetrics[0].External == nil {
			return fmt.Sprintf("%+v %v", hpa, err), false
		}
		ext := hpa.Status.CurrentMetrics[0].External
		c := findCondition(hpa, v2.ExternalMetricFallbackActive)
		ok := ext.FallbackStatus == v2.FallbackStatusFallback && ext.FirstFailureTime != nil && c != nil && c.Status == corev1.ConditionTrue
		if ok && firstFailure.IsZero() {
			firstFailure = ext.FirstFailureTime.Time
		}
		ok = ok && ext.FirstFailureTime.Time.Equal(firstFailure)
		return fmt.Sprintf("%+v, ExternalMetricFallbackActive %+v", ext, c), ok
	}
	env.until(t, "the fallback scales the Deployment to 4", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, "payments")
		last, ok := inFallback()
		return fmt.Sprintf("replicas %d, %s", got, last), got == 4 && ok
	})

	scaleByHand(ctx, t, kube, ns, "payments", 0)
	env.until(t, "the HPA reports the pause", func() (string, bool) {
		hpa, err := hpas.Get(ctx, ns, "payments")
		if err != nil {
			return err.Error(), false
		}
		c := findCondition(hpa, autoscalingv2.ScalingActive)
		return fmt.Sprintf("ScalingActive %+v", c), c != nil && c.Reason == "ScalingDisabled"
	})
	for range 2 {
		env.clock.Step(syncPeriod)
		time.Sleep(300 * time.Millisecond)
	}
	if last, ok := inFallback(); !ok {
		t.Fatalf("after passes paused at zero: %s, want still in fallback since %v", last, firstFailure)
	}

	scaleByHand(ctx, t, kube, ns, "payments", 1)
	env.until(t, "the fallback applies again at once", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, "payments")
		last, ok := inFallback()
		return fmt.Sprintf("replicas %d, %s", got, last), got == 4 && ok
	})
}
