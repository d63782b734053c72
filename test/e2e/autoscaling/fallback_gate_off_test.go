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

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// startGateOffEnvironment starts, for the running spec, an in-tree
// environment of its own whose kube-apiserver and kube-controller-manager
// both run with HPAExternalMetricFallback=false (the suite's run with it
// on), and stops it after the spec. One node: the spec needs few pods.
func startGateOffEnvironment(ctx context.Context) *framework.Environment {
	ginkgo.GinkgoHelper()
	opts := inTreeOptions(suite.Config.RepoRoot)
	opts.Nodes = 1
	opts.FeatureGates["HPAExternalMetricFallback"] = false
	begin := time.Now()
	env, err := framework.StartLocal(klog.NewContext(ctx, ginkgo.GinkgoLogr), opts)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting an in-tree environment with the gate off")
	ginkgo.DeferCleanup(env.Stop)
	ginkgo.AddReportEntry("environment with HPAExternalMetricFallback=false", env.Config().LogDir+" (started in "+
		time.Since(begin).Round(time.Second).String()+")")
	e, err := framework.NewEnvironment(env.Config())
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return e
}

// hasNoFallbackState checks that the HPA's status carries nothing of
// KEP-5679: no fallbackStatus nor firstFailureTime, no
// ExternalMetricFallbackActive condition.
func hasNoFallbackState(g gomega.Gomega, h *v2.HorizontalPodAutoscaler) {
	for _, m := range h.Status.CurrentMetrics {
		if m.External != nil {
			g.Expect(m.External.FallbackStatus).To(gomega.BeEmpty(), "fallbackStatus of %s", m.External.Metric.Name)
			g.Expect(m.External.FirstFailureTime).To(gomega.BeNil(), "firstFailureTime of %s", m.External.Metric.Name)
		}
	}
	g.Expect(framework.FindCondition(h, v2.ExternalMetricFallbackActive)).To(gomega.BeNil(), "condition ExternalMetricFallbackActive")
}

var _ = sigDescribe([]string{featureHPA, featureFallback, inTreeMode}, "Horizontal pod autoscaling (external metric fallback, feature gate off)", func() {
	ginkgo.It("should drop the fallback of a native HPA and scale as upstream does when HPAExternalMetricFallback is off", func(ctx context.Context) {
		requireLocal()
		env := startGateOffEnvironment(ctx)
		f := framework.NewFrameworkIn(ctx, "fallback-gate-off", env)
		const healthyName, failingName = "healthy", "failing"
		healthy, failing := f.UniqueName("requests"), f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, healthyName, 1)
		f.CreateDeployment(ctx, failingName, 2)
		f.SetExternalMetric(ctx, healthy, "30")
		f.SetExternalMetricFault(ctx, failing, framework.FaultError)

		ginkgo.By("applying native HPAs with a fallback: kube-apiserver drops it on create")
		for _, h := range []*v2.HorizontalPodAutoscaler{
			fallbackHPA(healthyName, 1, 5, fallbackMetric(healthy, 4)),
			fallbackHPA(failingName, 1, 5, fallbackMetric(failing, 4)),
		} {
			f.CreateHPA(ctx, framework.Native, h)
			got, err := f.GetHPA(ctx, framework.Native, h.Name)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(got.Spec.Metrics).To(gomega.HaveLen(1))
			gomega.Expect(got.Spec.Metrics[0].External.Fallback).To(gomega.BeNil(), "the fallback of %s with the gate off", h.Name)
		}
		ginkgo.By("adding a fallback on update: dropped too, as the stored object has none")
		f.UpdateHPA(ctx, framework.Native, failingName, func(h *v2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].External.Fallback = framework.Fallback(4, failureDuration)
		})
		got, err := f.GetHPA(ctx, framework.Native, failingName)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Spec.Metrics[0].External.Fallback).To(gomega.BeNil(), "a fallback added by an update with the gate off")

		ginkgo.By("scaling on the healthy metric: 30 asks for 3")
		f.WaitForReplicas(ctx, healthyName, 3, reaction())
		f.WaitForCondition(ctx, framework.Native, healthyName, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())

		ginkgo.By("failing the other metric as upstream does: ScalingActive=False, no fallback state, no scale")
		f.WaitForCondition(ctx, framework.Native, failingName, autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetExternalMetric", reaction())
		gomega.Consistently(ctx, func(g gomega.Gomega) {
			for _, name := range []string{healthyName, failingName} {
				h, err := f.GetHPA(ctx, framework.Native, name)
				g.Expect(err).NotTo(gomega.HaveOccurred())
				hasNoFallbackState(g, h)
			}
			g.Expect(scaleOf(ctx, f, failingName)).To(gomega.Equal(int32(2)), "Deployment %s", failingName)
		}).WithTimeout(3 * suite.Config.SyncPeriod.Duration).WithPolling(time.Second).Should(gomega.Succeed())
		f.WaitForEvent(ctx, failingName, "FailedGetExternalMetric", failing, reaction())
		for _, e := range f.Events(ctx, "") {
			gomega.Expect(e.Reason).NotTo(gomega.HavePrefix("ExternalMetricFallback"), "event %s: %s", e.Reason, e.Message)
		}
	})
})
