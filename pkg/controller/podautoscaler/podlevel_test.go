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
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// TestPodLevelResourcesGate pins that the PodLevelResources gate decides
// which requests CPU utilization is relative to, as in
// kube-controller-manager: with it on, a pod's own requests; with it off,
// its containers'. Each pod requests 100m in its container and 400m at pod
// level, and uses 200m: 200% of the container request, 50% of the pod's.
func TestPodLevelResourcesGate(t *testing.T) {
	cases := []struct {
		name string
		on   bool
		want int32
	}{
		{name: "gate on: utilization is of the pod-level request (50% of a 50% target keeps 2 replicas)", on: true, want: 0},
		{name: "gate off: utilization is of the container request (200% of a 50% target doubles the replicas to the scale-up limit)", on: false, want: 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), withGates(features.PodLevelResources, tc.on))
			h.scales.setScale(2, 2, testSelector)
			for i := range 2 {
				pod := readyPod(fmt.Sprintf("web-%d", i), 100, testStart.Add(-time.Hour))
				pod.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: *resource.NewMilliQuantity(400, resource.DecimalSI),
				}}
				h.addPod(pod)
			}
			h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(200, 200))

			h.mustReconcile()
			if tc.want == 0 {
				h.assertUpdates()
				return
			}
			h.assertUpdates(tc.want)
		})
	}
}
