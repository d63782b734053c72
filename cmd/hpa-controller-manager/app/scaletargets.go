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

package app

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/scalecache"
)

// targetedKinds returns the function the scale cache asks which workload
// kinds it must keep watching: those that an HPA in one of stores (the
// extended kind's and the native kind's) targets.
func targetedKinds(stores ...cache.Store) func() sets.Set[schema.GroupResource] {
	return func() sets.Set[schema.GroupResource] {
		out := sets.New[schema.GroupResource]()
		add := func(apiVersion, kind string) {
			if resource, ok := scalecache.ResourceOf(apiVersion, kind); ok {
				out.Insert(resource)
			}
		}
		for _, store := range stores {
			for _, obj := range store.List() {
				switch hpa := obj.(type) {
				case *v2.HorizontalPodAutoscaler:
					add(hpa.Spec.ScaleTargetRef.APIVersion, hpa.Spec.ScaleTargetRef.Kind)
				case *autoscalingv2.HorizontalPodAutoscaler:
					add(hpa.Spec.ScaleTargetRef.APIVersion, hpa.Spec.ScaleTargetRef.Kind)
				}
			}
		}
		return out
	}
}
