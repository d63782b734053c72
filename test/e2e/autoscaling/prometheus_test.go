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
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// prometheusTag marks the specs whose external metrics come from a real
// Prometheus behind the test metrics adapter, so that they run alone with
// --label-filter=Prometheus.
const prometheusTag = "Prometheus"

// queueGauge is the exporter's gauge of the Prometheus specs; each spec
// has a Prometheus of its own, so the name needs no uniqueness.
const queueGauge = "e2e_queue_depth"

// queueQuery sums the gauge's series of one queue: Prometheus answers no
// series at all while the queue has none.
func queueQuery(queue string) string {
	return fmt.Sprintf(`sum(%s{queue=%q})`, queueGauge, queue)
}

// scalingActiveSays checks that ScalingActive is False because the metric
// could not be fetched, with a message that holds part: what the adapter
// said about Prometheus reaches the HPA's status.
func scalingActiveSays(part string) func(*v2.HorizontalPodAutoscaler) bool {
	return func(h *v2.HorizontalPodAutoscaler) bool {
		c := framework.FindCondition(h, autoscalingv2.ScalingActive)
		return c != nil && c.Status == corev1.ConditionFalse && c.Reason == "FailedGetExternalMetric" && strings.Contains(c.Message, part)
	}
}

var _ = sigDescribe([]string{featureHPA, featureFallback, prometheusTag}, "Horizontal pod autoscaling (external metrics from Prometheus)", func() {
	f := newFramework("prometheus")

	ginkgo.It("should scale on a PromQL query answered by Prometheus", func(ctx context.Context) {
		requireLocal()
		p := f.StartPrometheus(ctx)
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		p.SetGauge(queueGauge, map[string]string{"queue": "orders"}, 30)
		// Another series of the same query that the HPA's selector leaves out:
		// alone it would ask for maxReplicas.
		p.SetGauge(queueGauge, map[string]string{"queue": "payments"}, 500)
		f.SetPromQLMetric(ctx, metric, fmt.Sprintf("sum by (queue) (%s)", queueGauge), p)
		f.CreateDeployment(ctx, name, 1)
		hpa := framework.NoScaleDownStabilization(framework.ExternalHPA(name, name, metric, autoscalingv2.AverageValueMetricType, "10", 1, 8))
		hpa.Spec.Metrics[0].External.Metric.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "orders"}}
		f.CreateHPA(ctx, hpaKind(), hpa)

		ginkgo.By("scaling to 3 on a queue of 30 for an average of 10")
		f.WaitForReplicas(ctx, name, 3, reaction())
		h := f.WaitForHPA(ctx, hpaKind(), name, reaction(), "the current value of the query", func(h *v2.HorizontalPodAutoscaler) bool {
			st := framework.ExternalMetricStatus(h, metric)
			return st != nil && st.Current.AverageValue != nil && st.Current.AverageValue.Cmp(resource.MustParse("10")) == 0
		})
		gomega.Expect(framework.FindCondition(h, autoscalingv2.ScalingActive).Reason).To(gomega.Equal("ValidMetricFound"))

		ginkgo.By("following the exporter: 50 asks for 5, then 10 for 1")
		p.SetGauge(queueGauge, map[string]string{"queue": "orders"}, 50)
		f.WaitForReplicas(ctx, name, 5, reaction())
		p.SetGauge(queueGauge, map[string]string{"queue": "orders"}, 10)
		f.WaitForReplicas(ctx, name, 1, reaction())
		f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 1", reaction())
	})

	// One spec for the three ways Prometheus fails, so that the suite waits
	// through failureDurationSeconds once for all of them (every fallback
	// spec needs a ginkgo process of its own for its minutes): an HPA whose
	// query finds no series from the start, and one on a live series whose
	// Prometheus first hangs, then is down.
	ginkgo.It("should fall back when Prometheus hangs, is down or returns no series, and recover once it answers", afterShortSpecs, func(ctx context.Context) {
		requireLocal()
		f.TolerateDisruptions(ctx)
		p := f.StartPrometheus(ctx)
		const live, none = "live", "none"
		liveMetric, noneMetric := f.UniqueName("queue_depth"), f.UniqueName("refunds_depth")
		p.SetGauge(queueGauge, map[string]string{"queue": "orders"}, 20)
		f.SetPromQLMetric(ctx, liveMetric, queueQuery("orders"), p)
		f.SetPromQLMetric(ctx, noneMetric, queueQuery("refunds"), p)
		f.CreateDeployment(ctx, live, 1)
		f.CreateDeployment(ctx, none, 1)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(live, 1, 6, fallbackMetric(liveMetric, 4)))
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(none, 1, 6, fallbackMetric(noneMetric, 3)))

		ginkgo.By("scaling on the live query: 20 asks for 2")
		f.WaitForReplicas(ctx, live, 2, tolerantReaction())
		ginkgo.By("failing the query without series as an empty answer")
		noneFailure := waitForFirstFailure(ctx, f, none, noneMetric, tolerantReaction())
		f.WaitForHPA(ctx, hpaKind(), none, tolerantReaction(), "an empty answer in ScalingActive", scalingActiveSays("no metrics returned"))

		ginkgo.By("pausing Prometheus: the adapter's query times out")
		gomega.Expect(p.Server.Pause()).To(gomega.Succeed())
		liveFailure := waitForFirstFailure(ctx, f, live, liveMetric, tolerantReaction())
		f.WaitForHPA(ctx, hpaKind(), live, tolerantReaction(), "a Prometheus time-out in ScalingActive", scalingActiveSays("Prometheus did not answer in time"))
		ginkgo.By("stopping Prometheus: the adapter cannot reach it")
		gomega.Expect(p.Server.Stop(ctx)).To(gomega.Succeed())
		f.WaitForHPA(ctx, hpaKind(), live, tolerantReaction(), "an unreachable Prometheus in ScalingActive", scalingActiveSays("Prometheus is unreachable"))

		noneDeadline, liveDeadline := noneFailure.Add(failureDuration), liveFailure.Add(failureDuration)
		ginkgo.By("checking that nothing scales before failureDurationSeconds of failures")
		consistentlyUntil(ctx, noneDeadline, stillFailing(f, none, noneMetric, noneFailure, 1), stillFailing(f, live, liveMetric, liveFailure, 2))
		cond := waitForFallbackActive(ctx, f, none, noneDeadline, tolerantReaction())
		gomega.Expect(cond.Message).To(gomega.ContainSubstring(noneMetric))
		f.WaitForReplicas(ctx, none, 3, tolerantReaction())
		f.WaitForEvent(ctx, none, "ExternalMetricFallbackActivated", activatedMessage(noneMetric, 3), reaction())
		consistentlyUntil(ctx, liveDeadline, stillFailing(f, live, liveMetric, liveFailure, 2))
		cond = waitForFallbackActive(ctx, f, live, liveDeadline, tolerantReaction())
		gomega.Expect(cond.Message).To(gomega.ContainSubstring(liveMetric))
		f.WaitForReplicas(ctx, live, 4, tolerantReaction())
		f.WaitForEvent(ctx, live, "ExternalMetricFallbackActivated", activatedMessage(liveMetric, 4), reaction())
		for hpa, metric := range map[string]string{live: liveMetric, none: noneMetric} {
			h, err := f.GetHPA(ctx, hpaKind(), hpa)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			st := framework.ExternalMetricStatus(h, metric)
			gomega.Expect(st.FallbackStatus).To(gomega.Equal(v2.FallbackStatusFallback), "%s in fallback", metric)
		}

		ginkgo.By("starting Prometheus again: the live query recovers, the query without series stays in fallback")
		gomega.Expect(p.Server.Start(ctx)).To(gomega.Succeed())
		f.WaitForHPA(ctx, hpaKind(), live, tolerantReaction(), "the live metric healthy again", func(h *v2.HorizontalPodAutoscaler) bool {
			return reportsHealthy(h, liveMetric, true)
		})
		f.WaitForCondition(ctx, hpaKind(), live, v2.ExternalMetricFallbackActive, corev1.ConditionFalse, "NoFallbackActive", tolerantReaction())
		f.WaitForReplicas(ctx, live, 2, tolerantReaction())
		f.WaitForEvent(ctx, live, "ExternalMetricFallbackDeactivated", deactivatedMessage(liveMetric), reaction())
		h, err := f.GetHPA(ctx, hpaKind(), none)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(framework.ExternalMetricStatus(h, noneMetric).FallbackStatus).To(gomega.Equal(v2.FallbackStatusFallback),
			"a query without series is a failure even from a Prometheus that answers")

		ginkgo.By("giving the empty query a series: 10 asks for 1")
		p.SetGauge(queueGauge, map[string]string{"queue": "refunds"}, 10)
		f.WaitForHPA(ctx, hpaKind(), none, tolerantReaction(), "the metric without series healthy again", func(h *v2.HorizontalPodAutoscaler) bool {
			return reportsHealthy(h, noneMetric, true)
		})
		f.WaitForReplicas(ctx, none, 1, tolerantReaction())
		f.WaitForEvent(ctx, none, "ExternalMetricFallbackDeactivated", deactivatedMessage(noneMetric), reaction())
	})
})
