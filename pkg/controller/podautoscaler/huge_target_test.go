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
	"testing"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// TestHugeTargetsAskForFewReplicas pins that a target beyond the int64
// milli range reads as the largest milli-value, so a moderate reading is a
// tiny share of it and the workload scales down to minReplicas.
// Quantity.MilliValue reads 1e30 as 0, which made every reading infinitely
// above target and scaled up.
func TestHugeTargetsAskForFewReplicas(t *testing.T) {
	cases := []struct {
		name   string
		metric v2.MetricSpec
		setup  func(*harness)
	}{
		{name: "External Value target 1e30", metric: externalValue("queue", "1e30"), setup: externalSeries("queue", 5000)},
		{name: "External AverageValue target 1e30", metric: externalAverage("queue", "1e30"), setup: externalSeries("queue", 5000)},
		{name: "Object Value target 1e30", metric: ingressValue("requests", "1e30"), setup: objectMetricValue("requests", 5000)},
		{name: "Object AverageValue target 1e30", metric: ingressAverage("requests", "1e30"), setup: objectMetricValue("requests", 5000)},
		{name: "Pods AverageValue target 1e30", metric: podsAverage("qps", "1e30"), setup: podsMetricValues("qps", 5000, 5000, 5000, 5000)},
		{name: "Resource AverageValue target 1e30", metric: memoryAverageValue("1e30"), setup: memoryUsage(5000, 5000, 5000, 5000)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 10, tc.metric), noDownscaleWindow(harnessOptions{}))
			h.scales.setScale(4, 4, testSelector)
			h.addPods(4, 100)
			tc.setup(h)

			h.mustReconcile()
			h.assertUpdates(1)
		})
	}
}
