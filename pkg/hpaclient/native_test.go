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

package hpaclient

import (
	"context"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func TestNativeSourceSeesNativeHPAsThroughTheExtendedType(t *testing.T) {
	native := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "u1"},
		Spec:       autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 4},
	}
	client := fake.NewClientset(native)
	informer := informers.NewSharedInformerFactory(client, 0).Autoscaling().V2().HorizontalPodAutoscalers().Informer()
	if err := informer.GetIndexer().Add(native); err != nil {
		t.Fatal(err)
	}
	src := NewNativeSource(client.AutoscalingV2(), informer)

	hpa, ok, err := src.Get("default", "web")
	if err != nil || !ok || hpa.Spec.MaxReplicas != 4 {
		t.Fatalf("Get = %+v, %v, %v", hpa, ok, err)
	}
	hpa.Spec.MaxReplicas = 40 // the result is a copy: the cache must not change
	if cached, _, _ := informer.GetIndexer().GetByKey("default/web"); cached.(*autoscalingv2.HorizontalPodAutoscaler).Spec.MaxReplicas != 4 {
		t.Error("changing the converted HPA changed the informer cache")
	}

	hpa.Status = v2.HorizontalPodAutoscalerStatus{DesiredReplicas: 3, CurrentMetrics: []v2.MetricStatus{{
		Type:     autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricStatus{Metric: v2.MetricIdentifier{Name: "q"}, FallbackStatus: v2.FallbackStatusFallback},
	}}}
	if _, err := src.UpdateStatus(context.Background(), hpa); err != nil {
		t.Fatalf("UpdateStatus: %v", err)
	}
	stored, err := client.AutoscalingV2().HorizontalPodAutoscalers("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status.DesiredReplicas != 3 || stored.Status.CurrentMetrics[0].External.Metric.Name != "q" {
		t.Errorf("stored status = %+v", stored.Status)
	}

	if gvk := src.EventObject(hpa).GetObjectKind().GroupVersionKind(); gvk.Group != "autoscaling" || gvk.Version != "v2" {
		t.Errorf("event object kind = %v, want native autoscaling/v2", gvk)
	}
	if src.Name() == NewSource(nil, nil).Name() {
		t.Error("the native and extended sources must have different names")
	}
	if _, ok, _ := src.Get("default", "missing"); ok {
		t.Error("Get of a missing HPA reported it present")
	}
}
