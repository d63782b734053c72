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
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// decisionIs matches a decision on everything but its time and generation.
func decisionIs(d *v2.HorizontalPodAutoscalerScaleDecision, reason v2.HPAScaleDecisionReason, current int32, recommended *int32, desired int32,
	metrics []v2.HPAMetricScaleDecision, constraints ...v2.HPAScaleDecisionConstraint) bool {
	return d != nil && d.Reason == reason && d.CurrentReplicas == current && equality.Semantic.DeepEqual(d.RecommendedReplicas, recommended) &&
		d.DesiredReplicas == desired && equality.Semantic.DeepEqual(d.Metrics, metrics) && equality.Semantic.DeepEqual(d.Constraints, constraints)
}

func metricDecision(i int32, proposed *int32, status v2.HPAMetricScaleDecisionStatus, reason v2.HPAMetricScaleDecisionReason) v2.HPAMetricScaleDecision {
	return v2.HPAMetricScaleDecision{MetricIndex: i, ProposedReplicas: proposed, Status: status, Reason: reason}
}

var _ = sigDescribe([]string{featureHPA, featureDecisionTrace, crdMode}, "Horizontal pod autoscaling (decision trace)", func() {
	f := newFramework("decision-trace")

	ginkgo.It("should explain a multi-metric decision in status.lastScaleDecision and write it only when it changes", func(ctx context.Context) {
		requireGate(string(features.KubeHPADecisionTrace))
		const name = "worker"
		queue, backlog := f.UniqueName("queue_depth"), f.UniqueName("backlog")
		f.CreateDeployment(ctx, name, 2)
		f.SetExternalMetric(ctx, queue, "40")   // 40 / 10 per replica: 4 replicas
		f.SetExternalMetric(ctx, backlog, "20") // 2 replicas
		hpa := framework.MultiMetricHPA(name, name, 1, 6,
			framework.AverageValueExternalMetric(queue, "10", nil), framework.AverageValueExternalMetric(backlog, "10", nil))
		// One pod more per five minutes: the policy decides.
		hpa.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 300}},
		}}
		f.CreateHPA(ctx, framework.Extended, hpa)

		ginkgo.By("explaining the scale-up the policy limited: queue_depth asks for 4, backlog for 2, one pod more is allowed")
		metrics := []v2.HPAMetricScaleDecision{
			metricDecision(0, ptr.To[int32](4), v2.MetricScaleDecisionUsed, v2.MetricScaleDecisionComputed),
			metricDecision(1, ptr.To[int32](2), v2.MetricScaleDecisionValid, v2.MetricScaleDecisionComputed),
		}
		got := f.WaitForHPA(ctx, framework.Extended, name, reaction(), "the decision after the scale to 3", func(h *v2.HorizontalPodAutoscaler) bool {
			return decisionIs(h.Status.LastScaleDecision, v2.ScaleDecisionPolicyLimited, 3, ptr.To[int32](4), 3, metrics, v2.ScaleDecisionConstraintScalingPolicy)
		})
		gomega.Expect(got.Status.LastScaleDecision.ObservedGeneration).To(gomega.Equal(got.Generation))
		f.WaitForScale(ctx, name, 3, reaction())

		ginkgo.By("writing no status while the decision stays the same")
		stored := got.ResourceVersion
		gomega.Consistently(ctx, func(g gomega.Gomega) {
			h, err := f.GetHPA(ctx, framework.Extended, name)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(h.ResourceVersion).To(gomega.Equal(stored), "the HPA was written: %s; status (-before +after):\n%s",
				describe(h.Status.LastScaleDecision), cmp.Diff(got.Status, h.Status))
		}).WithTimeout(3 * suite.Config.SyncPeriod.Duration).WithPolling(time.Second).Should(gomega.Succeed())

		ginkgo.By("showing the reason in kubectl get")
		out, err := f.Kubectl(ctx, "", "get", "xhpa", name, "-n", f.Namespace)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(out).To(gomega.MatchRegexp(`DECISION[\s\S]*PolicyLimited`))
		ginkgo.AddReportEntry("kubectl get xhpa", out)
		yaml, err := f.Kubectl(ctx, "", "get", "xhpa", name, "-n", f.Namespace, "-o", "yaml")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.AddReportEntry("kubectl get xhpa -o yaml", yaml)
	})

	ginkgo.It("should give scaling to and from zero a reason of its own", func(ctx context.Context) {
		requireGate(string(features.KubeHPADecisionTrace))
		const name = "idle"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "0")
		f.CreateHPA(ctx, framework.Extended, framework.NoScaleDownStabilization(
			framework.MultiMetricHPA(name, name, 0, 3, framework.AverageValueExternalMetric(metric, "10", nil))))

		ginkgo.By("scaling to zero")
		f.WaitForHPA(ctx, framework.Extended, name, reaction(), "a ScaleToZero decision", func(h *v2.HorizontalPodAutoscaler) bool {
			return decisionIs(h.Status.LastScaleDecision, v2.ScaleDecisionScaleToZero, 1, ptr.To[int32](0), 0,
				[]v2.HPAMetricScaleDecision{metricDecision(0, ptr.To[int32](0), v2.MetricScaleDecisionUsed, v2.MetricScaleDecisionComputed)})
		})
		f.WaitForScale(ctx, name, 0, reaction())

		ginkgo.By("scaling back from zero")
		f.SetExternalMetric(ctx, metric, "20")
		f.WaitForHPA(ctx, framework.Extended, name, reaction(), "a ScaleFromZero decision", func(h *v2.HorizontalPodAutoscaler) bool {
			return decisionIs(h.Status.LastScaleDecision, v2.ScaleDecisionScaleFromZero, 0, ptr.To[int32](2), 2,
				[]v2.HPAMetricScaleDecision{metricDecision(0, ptr.To[int32](2), v2.MetricScaleDecisionUsed, v2.MetricScaleDecisionComputed)})
		})
		f.WaitForScale(ctx, name, 2, reaction())
	})
})

// describe prints a decision for a failure message.
func describe(d *v2.HorizontalPodAutoscalerScaleDecision) string {
	if d == nil {
		return "no lastScaleDecision"
	}
	return string(d.Reason) + " at " + d.Time.UTC().Format(time.RFC3339)
}
