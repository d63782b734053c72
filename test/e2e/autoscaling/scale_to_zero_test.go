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
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// zeroHPA is an HPA with minReplicas 0 on one External metric with an
// AverageValue target of 10 (10*n asks for n replicas; 0 asks for none),
// without scale-down stabilization.
func zeroHPA(name, metric string, maxReplicas int32) *v2.HorizontalPodAutoscaler {
	return framework.NoScaleDownStabilization(
		framework.ExternalHPA(name, name, metric, autoscalingv2.AverageValueMetricType, "10", 0, maxReplicas))
}

// notScaledToZero tells whether ScaledToZero is absent or not True.
func notScaledToZero(h *v2.HorizontalPodAutoscaler) bool {
	return !conditionIsTrue(framework.FindCondition(h, v2.ScaledToZero))
}

// pausedFor is how long a spec watches a paused HPA: long enough for the
// metric's answer to reach the controller and for two passes after it.
func pausedFor() time.Duration { return staleness() + 2*suite.Config.SyncPeriod.Duration }

var _ = sigDescribe([]string{featureHPA, featureZero}, "Horizontal pod autoscaling (scale to zero)", func() {
	f := newFramework("zero")

	// Upstream's spec of the same name (KEP-2021), on both kinds (in
	// in-tree mode on native HPAs alone).
	ginkgo.DescribeTable("should scale down to zero and back up based on external metric value",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "consumer"
			metric := f.UniqueName("queue_messages_ready")
			f.CreateDeployment(ctx, name, 2)
			f.SetExternalMetric(ctx, metric, "0")
			f.CreateHPA(ctx, kind, zeroHPA(name, metric, 5))

			ginkgo.By("waiting for the HPA to scale to zero on an empty queue")
			f.WaitForReplicas(ctx, name, 0, reaction())
			f.WaitForCondition(ctx, kind, name, v2.ScaledToZero, corev1.ConditionTrue, "ScaledToZero", reaction())
			f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 0", reaction())
			ginkgo.By("checking the metric is still read at zero replicas, without a division by zero")
			h := f.WaitForHPA(ctx, kind, name, reaction(), "the metric read at zero replicas", func(h *v2.HorizontalPodAutoscaler) bool {
				st := framework.ExternalMetricStatus(h, metric)
				return h.Status.CurrentReplicas == 0 && st != nil && st.Current.AverageValue != nil
			})
			// Upstream's controller divides the metric by status.replicas
			// even at zero; kube-hpa does not, and the in-tree mode carries
			// the fix as its own series (fix-average-at-zero).
			gomega.Expect(framework.ExternalMetricStatus(h, metric).Current.AverageValue.Sign()).To(gomega.BeNumerically(">=", 0),
				"averageValue at zero replicas")
			cond := framework.FindCondition(h, autoscalingv2.ScalingActive)
			gomega.Expect(cond).NotTo(gomega.BeNil())
			gomega.Expect(cond.Status).To(gomega.Equal(corev1.ConditionTrue), "an HPA that scaled to zero keeps scaling")

			ginkgo.By("raising the metric to ask for 3 replicas")
			f.SetExternalMetric(ctx, metric, "30")
			f.WaitForReplicas(ctx, name, 3, reaction())
			f.WaitForCondition(ctx, kind, name, v2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero", reaction())
			f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 3", reaction())
		},
		ginkgo.Entry("extended HPA", ginkgo.Label(crdMode), framework.Extended),
		ginkgo.Entry("native autoscaling/v2 HPA", framework.Native),
	)

	ginkgo.It("should leave a Deployment scaled to zero by hand at zero", func(ctx context.Context) {
		const name = "consumer"
		metric := f.UniqueName("queue_messages_ready")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "30")
		f.CreateHPA(ctx, hpaKind(), zeroHPA(name, metric, 5))
		f.WaitForReplicas(ctx, name, 3, reaction())

		ginkgo.By("scaling the Deployment to zero by hand while the metric asks for 3")
		f.ScaleByHand(ctx, name, 0)
		f.WaitForReplicas(ctx, name, 0, framework.ReplicasTimeout)
		f.WaitForCondition(ctx, hpaKind(), name, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", reaction())
		f.EnsureScaleStays(ctx, name, 0, pausedFor())
		h, err := f.GetHPA(ctx, hpaKind(), name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(h).To(gomega.Satisfy(notScaledToZero), "ScaledToZero is True only when the HPA scaled to zero itself")
		gomega.Expect(h.Status.DesiredReplicas).To(gomega.Equal(int32(0)))

		ginkgo.By("scaling it back to 1 by hand: the HPA resumes")
		f.ScaleByHand(ctx, name, 1)
		f.WaitForReplicas(ctx, name, 3, reaction())
		f.WaitForCondition(ctx, hpaKind(), name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
	})

	ginkgo.It("should scale back up to minReplicas when minReplicas is raised from 0 while scaled to zero", func(ctx context.Context) {
		const name = "consumer"
		metric := f.UniqueName("queue_messages_ready")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "0")
		f.CreateHPA(ctx, hpaKind(), zeroHPA(name, metric, 5))
		f.WaitForReplicas(ctx, name, 0, reaction())
		f.WaitForCondition(ctx, hpaKind(), name, v2.ScaledToZero, corev1.ConditionTrue, "ScaledToZero", reaction())

		ginkgo.By("raising minReplicas to 1, the metric still asking for none")
		f.UpdateHPA(ctx, hpaKind(), name, func(h *v2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr.To[int32](1) })
		f.WaitForReplicas(ctx, name, 1, reaction())
		f.WaitForCondition(ctx, hpaKind(), name, v2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero", reaction())
		f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 1; reason: Current number of replicas below Spec.MinReplicas", reaction())
		f.EnsureScaleStays(ctx, name, 1, 2*suite.Config.SyncPeriod.Duration)
	})

	ginkgo.DescribeTable("should scale to zero and back up on the External metric of an HPA that also has a CPU metric",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "busy-consumer"
			metric := f.UniqueName("queue_messages_ready")
			f.CreateDeployment(ctx, name, 2)
			// kwok counts a container's CPU from its first scrape on: an
			// idle pod must be measured once before it goes to zero, or
			// metrics-server never reports it.
			f.WaitForPodCPU(ctx, name, "1m", 2, resourceReaction())
			for _, p := range f.RunningPods(ctx, name) {
				f.SetPodCPU(ctx, p.Name, "0")
			}
			f.WaitForPodCPU(ctx, name, "0", 2, resourceReaction())
			f.SetExternalMetric(ctx, metric, "0")
			h := zeroHPA(name, metric, 5)
			h.Spec.Metrics = append(h.Spec.Metrics, framework.ResourceUtilization(corev1.ResourceCPU, 50))
			f.CreateHPA(ctx, kind, h)

			ginkgo.By("idle pods and an empty queue: both propose zero")
			f.WaitForReplicas(ctx, name, 0, resourceReaction())
			f.WaitForCondition(ctx, kind, name, v2.ScaledToZero, corev1.ConditionTrue, "ScaledToZero", reaction())

			ginkgo.By("the queue asks for 3: the External metric brings it back, the CPU of no pods proposes nothing")
			f.SetExternalMetric(ctx, metric, "30")
			f.WaitForReplicas(ctx, name, 3, reaction())
			f.WaitForCondition(ctx, kind, name, v2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero", reaction())
		},
		ginkgo.Entry("extended HPA", ginkgo.Label(crdMode), framework.Extended),
		ginkgo.Entry("native autoscaling/v2 HPA", framework.Native),
	)

	ginkgo.It("should never scale to zero an HPA with only a CPU metric", func(ctx context.Context) {
		ginkgo.By("applying minReplicas 0 with only a CPU metric, which kubectl apply must refuse")
		for _, kind := range []framework.HPAKind{framework.Extended, framework.Native} {
			if !suite.Config.Mode.Serves(kind) {
				continue // the in-tree mode has no CRD
			}
			out, err := f.Kubectl(ctx, cpuHPAManifest(kind, "cpu-zero", 0), "apply", "-n", f.Namespace, "-f", "-")
			gomega.Expect(err).To(gomega.HaveOccurred(), "kubectl apply of a %s HPA with minReplicas 0 and only a CPU metric: %s", kind, out)
			gomega.Expect(err.Error()).To(gomega.And(gomega.ContainSubstring("spec.metrics"), gomega.ContainSubstring("Object or External")),
				"the refusal of a %s HPA names the field path and the reason", kind)
		}

		ginkgo.By("scaling the target of a CPU HPA with minReplicas 1 to zero by hand: the HPA pauses")
		const name = "worker"
		f.CreateDeployment(ctx, name, 1)
		out, err := f.Kubectl(ctx, cpuHPAManifest(hpaKind(), name, 1), "apply", "-n", f.Namespace, "-f", "-")
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), out)
		// metrics-server reads the idle pod (1m of its 100m): the HPA
		// proposes its minimum, one.
		f.WaitForCondition(ctx, hpaKind(), name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", resourceReaction())
		f.ScaleByHand(ctx, name, 0)
		f.WaitForReplicas(ctx, name, 0, framework.ReplicasTimeout)
		f.WaitForCondition(ctx, hpaKind(), name, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", reaction())
		f.EnsureScaleStays(ctx, name, 0, 2*suite.Config.SyncPeriod.Duration)
		h, err := f.GetHPA(ctx, hpaKind(), name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(h).To(gomega.Satisfy(notScaledToZero))
	})
})

// cpuHPAManifest is an HPA manifest of kind on Deployment name with only a
// CPU utilization metric, as a user would write it.
func cpuHPAManifest(kind framework.HPAKind, name string, minReplicas int32) string {
	return fmt.Sprintf(`apiVersion: %s
kind: HorizontalPodAutoscaler
metadata:
  name: %s
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: %s
  minReplicas: %d
  maxReplicas: 5
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
`, kind, name, name, minReplicas)
}

var _ = sigDescribe([]string{featureHPA, featureZero, featureFallback}, "Horizontal pod autoscaling (scale to zero, external metric fallback)", func() {
	f := newFramework("zero-fallback")

	ginkgo.It("should let a fallback scale up a workload the HPA scaled to zero, never one a person scaled to zero", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const scaled, paused = "scaled-by-hpa", "paused-by-hand"
		scaledMetric, pausedMetric := f.UniqueName("queue_depth_a"), f.UniqueName("queue_depth_b")
		f.CreateDeployment(ctx, scaled, 1)
		f.CreateDeployment(ctx, paused, 1)
		f.SetExternalMetric(ctx, scaledMetric, "0")
		f.SetExternalMetricFault(ctx, pausedMetric, framework.FaultError)
		for _, hpa := range []*v2.HorizontalPodAutoscaler{zeroHPA(scaled, scaledMetric, 5), zeroHPA(paused, pausedMetric, 5)} {
			hpa.Spec.Metrics[0].External.Fallback = framework.Fallback(2, failureDuration)
			f.CreateHPA(ctx, hpaKind(), hpa)
		}

		ginkgo.By("letting the HPA scale one workload to zero on an empty queue")
		f.WaitForReplicas(ctx, scaled, 0, tolerantReaction())
		f.WaitForCondition(ctx, hpaKind(), scaled, v2.ScaledToZero, corev1.ConditionTrue, "ScaledToZero", tolerantReaction())
		ginkgo.By("failing that workload's metric: at zero, an HPA that scaled to zero still asks it")
		f.SetExternalMetricFault(ctx, scaledMetric, framework.FaultError)

		ginkgo.By("scaling the other workload to zero by hand once its metric has failed")
		pausedFailure := waitForFirstFailure(ctx, f, paused, pausedMetric, tolerantReaction())
		f.ScaleByHand(ctx, paused, 0)
		f.WaitForCondition(ctx, hpaKind(), paused, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", tolerantReaction())

		firstFailure := waitForFirstFailure(ctx, f, scaled, scaledMetric, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		consistentlyUntil(ctx, deadline, stillFailing(f, scaled, scaledMetric, firstFailure, 0), scaleIs(f, paused, 0))

		ginkgo.By("waiting for the fallback to bring back the workload the HPA scaled to zero")
		waitForFallbackActive(ctx, f, scaled, deadline, tolerantReaction())
		f.WaitForReplicas(ctx, scaled, 2, tolerantReaction())
		f.WaitForCondition(ctx, hpaKind(), scaled, v2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero", reaction())

		ginkgo.By("checking the workload a person scaled to zero stays there once its fallback is due")
		// Its metric failed first, so its fallback is due by now unless a
		// disruption (which this spec tolerates) delayed the first
		// failure the controller recorded: wait for it rather than assume.
		consistentlyUntil(ctx, pausedFailure.Add(failureDuration), scaleIs(f, paused, 0))
		f.EnsureScaleStays(ctx, paused, 0, 2*suite.Config.SyncPeriod.Duration)
		h, err := f.GetHPA(ctx, hpaKind(), paused)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for _, c := range []struct {
			t      autoscalingv2.HorizontalPodAutoscalerConditionType
			status corev1.ConditionStatus
			reason string
		}{
			{autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled"},
			{v2.ExternalMetricFallbackActive, corev1.ConditionFalse, "NoFallbackActive"},
		} {
			gomega.Expect(h).To(gomega.Satisfy(framework.ConditionMatcher(c.t, c.status, c.reason)), "%s of the paused HPA", c.t)
		}
	})
})
