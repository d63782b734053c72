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

package autoscaling

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

var _ = sigDescribe([]string{featureHPA}, "Horizontal pod autoscaling (external metrics)", func() {
	f := newFramework("external-metrics")

	// Upstream's spec of the same name, on the extended kind and, through
	// --manage-native-hpas, on native autoscaling/v2 HPAs; in in-tree mode
	// on native HPAs alone, which kube-controller-manager manages.
	ginkgo.DescribeTable("should scale up and down based on external metric value",
		func(ctx context.Context, kind framework.HPAKind, targetType autoscalingv2.MetricTargetType) {
			requireKind(kind)
			const name = "consumer"
			metric := f.UniqueName("queue_messages_ready")
			f.CreateDeployment(ctx, name, 1)

			// 150 against a target of 50 asks for 3 replicas in one step,
			// from either target type: Value compares the total with the
			// target, AverageValue divides it by the target.
			f.SetExternalMetric(ctx, metric, "150")
			ginkgo.By("creating an HPA on external metric " + metric)
			hpa := framework.NoScaleDownStabilization(framework.ExternalHPA(name, name, metric, targetType, "50", 1, 3))
			f.CreateHPA(ctx, kind, hpa)

			ginkgo.By("waiting for the HPA to scale up to maxReplicas")
			f.WaitForReplicas(ctx, name, 3, reaction())
			// The pass that scales reports the metric against the replicas
			// it started from; the next one sees all three.
			want := metricStatus(targetType, "150", "50")
			status := f.WaitForHPA(ctx, kind, name, reaction(), "status reports the metric at 3 replicas", func(h *v2.HorizontalPodAutoscaler) bool {
				return h.Status.CurrentReplicas == 3 && len(h.Status.CurrentMetrics) == 1 && want(h.Status.CurrentMetrics[0])
			})
			gomega.Expect(status.Status.CurrentMetrics[0].External.Metric.Name).To(gomega.Equal(metric))
			cond := framework.FindCondition(status, autoscalingv2.ScalingActive)
			gomega.Expect(cond).NotTo(gomega.BeNil())
			gomega.Expect(cond.Status).To(gomega.Equal(corev1.ConditionTrue))
			gomega.Expect(cond.Reason).To(gomega.Equal("ValidMetricFound"))
			f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 3", reaction())

			ginkgo.By("setting the metric to 0")
			f.SetExternalMetric(ctx, metric, "0")
			ginkgo.By("waiting for the HPA to scale down to minReplicas")
			f.WaitForReplicas(ctx, name, 1, reaction())
			f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 1", reaction())
		},
		ginkgo.Entry("Value target", ginkgo.Label(crdMode), framework.Extended, autoscalingv2.ValueMetricType),
		ginkgo.Entry("AverageValue target", ginkgo.Label(crdMode), framework.Extended, autoscalingv2.AverageValueMetricType),
		ginkgo.Entry("Value target, native autoscaling/v2 HPA", framework.Native, autoscalingv2.ValueMetricType),
		ginkgo.Entry("AverageValue target, native autoscaling/v2 HPA", framework.Native, autoscalingv2.AverageValueMetricType),
	)
})

// metricStatus matches the status of an External metric: its total for
// a Value target, the total over the current replicas for AverageValue.
func metricStatus(targetType autoscalingv2.MetricTargetType, total, average string) func(v2.MetricStatus) bool {
	return func(m v2.MetricStatus) bool {
		if m.External == nil {
			return false
		}
		if targetType == autoscalingv2.ValueMetricType {
			return quantityIs(m.External.Current.Value, total)
		}
		return quantityIs(m.External.Current.AverageValue, average)
	}
}

func quantityIs(q *resource.Quantity, want string) bool {
	return q != nil && q.Cmp(resource.MustParse(want)) == 0
}
