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
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func TestDropManagedFields(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	meta := metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "7", Labels: map[string]string{"a": "b"}, ManagedFields: managed}
	cases := []struct {
		name string
		obj  any
		// managedFields reads what is left of them after the transform.
		managedFields func(any) []metav1.ManagedFieldsEntry
	}{
		{"a native HPA loses its managed fields", &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: *meta.DeepCopy()},
			func(o any) []metav1.ManagedFieldsEntry {
				return o.(*autoscalingv2.HorizontalPodAutoscaler).ManagedFields
			}},
		{"an extended HPA loses its managed fields", &v2.HorizontalPodAutoscaler{ObjectMeta: *meta.DeepCopy()},
			func(o any) []metav1.ManagedFieldsEntry { return o.(*v2.HorizontalPodAutoscaler).ManagedFields }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DropManagedFields(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if m := tc.managedFields(got); m != nil {
				t.Errorf("managed fields kept: %v", m)
			}
			if a := got.(metav1.Object); a.GetName() != "web" || a.GetResourceVersion() != "7" || a.GetLabels()["a"] != "b" {
				t.Errorf("the rest of the metadata changed: %+v", a)
			}
		})
	}
	t.Run("a tombstone passes unchanged", func(t *testing.T) {
		tombstone := cache.DeletedFinalStateUnknown{Key: "shop/web", Obj: &v2.HorizontalPodAutoscaler{ObjectMeta: *meta.DeepCopy()}}
		got, err := DropManagedFields(tombstone)
		if err != nil || got.(cache.DeletedFinalStateUnknown).Obj.(*v2.HorizontalPodAutoscaler).ManagedFields == nil {
			t.Errorf("the tombstone changed (err %v)", err)
		}
	})
}
