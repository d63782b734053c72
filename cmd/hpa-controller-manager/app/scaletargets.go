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
