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
