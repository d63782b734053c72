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

package calculator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// BenchmarkGetResourceReplicas measures a Utilization proposal over 100
// pods, a few of them unready and a few without readings, so that the
// rebalancing path runs too.
func BenchmarkGetResourceReplicas(b *testing.B) {
	const n = 100
	podList := join(pods(n-10), pods(5, neverReady), pods(5, sidecar("proxy", "250m")))
	values := make([]int64, n-3)
	for i := range values {
		values[i] = 700 + int64(i%7)*10
	}
	fake := metricstest.NewClient().SetResource(corev1.ResourceCPU, metricstest.PodsAnswer{Metrics: readings(values...), Timestamp: metricTime})
	calc := newTestCalculator(b, podList, fake)
	ctx := b.Context()

	b.ReportAllocs()
	for b.Loop() {
		if _, err := calc.GetResourceReplicas(ctx, n, 50, corev1.ResourceCPU, defaultTolerances, testNamespace, podSelector, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetExternalMetricReplicas measures a Value proposal from an
// external metric with a handful of series, shared among 100 pods.
func BenchmarkGetExternalMetricReplicas(b *testing.B) {
	fake := metricstest.NewClient().SetExternal("queue_depth", metricstest.ExternalAnswer{Values: []int64{3000, 5600, 1200, 800}, Timestamp: metricTime})
	calc := newTestCalculator(b, pods(100), fake)
	ctx := b.Context()

	b.ReportAllocs()
	for b.Loop() {
		if _, err := calc.GetExternalMetricReplicas(ctx, 100, 4400, "queue_depth", defaultTolerances, testNamespace, queueSelector, podSelector, ""); err != nil {
			b.Fatal(err)
		}
	}
}
