package podautoscaler

import (
	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// ignoreSources drops the source of every metric of hpa, the pass's private
// copy, for a controller whose HPAMetricSource gate is off: KEP-6382 has it
// read each metric from the default API of its type then, and with the
// source gone nothing downstream (the fetch, status, the fallback history)
// can use or claim a source the controller does not route to.
func ignoreSources(hpa *v2.HorizontalPodAutoscaler) {
	for i := range hpa.Spec.Metrics {
		for _, id := range hpa.Spec.Metrics[i].Identifiers() {
			id.Source = nil
		}
	}
}
