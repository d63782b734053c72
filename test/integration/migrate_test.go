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
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/migrate"
)

// A migration there and back keeps the spec and behavior, leaves one HPA
// of one kind each time, and never writes the Deployment's replicas.
func TestMigrateThereAndBackKeepsSpecAndReplicas(t *testing.T) {
	_, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "web", 4)
	native := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Labels: map[string]string{"team": "shop"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    ptr.To[int32](2), MaxReplicas: 10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: "cpu", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](60)}}}},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](120)}},
		},
	}
	nativeClient := kube.AutoscalingV2().HorizontalPodAutoscalers(ns)
	stored, err := nativeClient.Create(ctx, native, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := migrate.Options{Native: nativeClient, Extended: hpas, Namespace: ns, Name: "web"}

	dry := opts
	dry.DryRun = true
	if _, err := migrate.ToExtended(ctx, dry); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if _, err := hpas.Get(ctx, ns, "web"); !apierrors.IsNotFound(err) {
		t.Fatalf("a dry run created the kube-hpa HPA (get: %v)", err)
	}

	extended, err := migrate.ToExtended(ctx, opts)
	if err != nil {
		t.Fatalf("to kube-hpa: %v", err)
	}
	if _, err := nativeClient.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the native HPA is still there after the migration (get: %v)", err)
	}
	if want := v2.FromNative(stored).Spec; !apiequality.Semantic.DeepEqual(extended.Spec, want) {
		t.Errorf("kube-hpa spec = %+v, want the native one's %+v", extended.Spec, want)
	}

	back, err := migrate.ToNative(ctx, opts)
	if err != nil {
		t.Fatalf("back to native: %v", err)
	}
	if _, err := hpas.Get(ctx, ns, "web"); !apierrors.IsNotFound(err) {
		t.Errorf("the kube-hpa HPA is still there after the migration back (get: %v)", err)
	}
	if !apiequality.Semantic.DeepEqual(back.Spec, stored.Spec) || back.Labels["team"] != "shop" {
		t.Errorf("native HPA after the round trip = %+v %v, want the original spec %+v and labels", back.Spec, back.Labels, stored.Spec)
	}

	after, err := kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *after.Spec.Replicas != *before.Spec.Replicas || after.Generation != before.Generation {
		t.Errorf("the Deployment changed during the migrations: replicas %d -> %d, generation %d -> %d",
			*before.Spec.Replicas, *after.Spec.Replicas, before.Generation, after.Generation)
	}
}
