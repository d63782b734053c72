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
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// startProposalsOffEnvironment starts, for the running spec, a CRD-mode
// environment of its own (one node, one controller replica) whose
// controller and webhook run with HPAConfigurableSyncPeriod and
// KubeHPADecisionTrace off, and stops it after the spec.
func startProposalsOffEnvironment(ctx context.Context) *framework.Environment {
	ginkgo.GinkgoHelper()
	begin := time.Now()
	local, err := framework.StartLocal(klog.NewContext(ctx, ginkgo.GinkgoLogr), framework.LocalOptions{
		RepoRoot:            suite.Config.RepoRoot,
		Replicas:            1,
		Nodes:               1,
		SyncPeriod:          syncPeriod,
		MetricSharingWindow: metricSharingWindow,
		FeatureGates:        map[string]bool{"HPAConfigurableSyncPeriod": false, "KubeHPADecisionTrace": false},
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting a CRD-mode environment with the proposals' gates off")
	ginkgo.DeferCleanup(local.Stop)
	ginkgo.AddReportEntry("environment with HPAConfigurableSyncPeriod and KubeHPADecisionTrace off",
		local.Config().LogDir+" (started in "+time.Since(begin).Round(time.Second).String()+")")
	env, err := framework.NewEnvironment(local.Config())
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return env
}

const syncPeriodManifest = `apiVersion: autoscaling.kube-hpa.io/v2
kind: HorizontalPodAutoscaler
metadata:
  name: fast
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  maxReplicas: 5
  metrics:
  - type: External
    external:
      metric: {name: queue_depth}
      target: {type: AverageValue, averageValue: "10"}
  syncPeriodSeconds: 5
`

var _ = sigDescribe([]string{featureHPA, featureSyncPeriod, featureDecisionTrace, crdMode}, "Horizontal pod autoscaling (sync period and decision trace, feature gates off)", func() {
	ginkgo.It("should refuse syncPeriodSeconds, export no period and write no decision when their gates are off", func(ctx context.Context) {
		requireLocal()
		env := startProposalsOffEnvironment(ctx)
		f := framework.NewFrameworkIn(ctx, "proposals-off", env)

		ginkgo.By("refusing syncPeriodSeconds on create, naming the field and the gate")
		out, err := f.Kubectl(ctx, syncPeriodManifest, "apply", "-n", f.Namespace, "-f", "-")
		gomega.Expect(err).To(gomega.HaveOccurred(), "syncPeriodSeconds with HPAConfigurableSyncPeriod off: %s", out)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("spec.syncPeriodSeconds: Forbidden"))
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("HPAConfigurableSyncPeriod"))

		ginkgo.By("scaling an HPA as upstream does, with no decision in its status and no period series")
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "30")
		f.CreateHPA(ctx, framework.Extended, framework.ExternalHPA(name, name, metric, autoscalingv2.AverageValueMetricType, "10", 1, 5))
		f.WaitForScale(ctx, name, 3, reaction())
		gomega.Consistently(ctx, func(g gomega.Gomega) {
			h, err := f.GetHPA(ctx, framework.Extended, name)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(h.Status.LastScaleDecision).To(gomega.BeNil(), "status.lastScaleDecision with KubeHPADecisionTrace off")
			g.Expect(h.Status.DesiredReplicas).To(gomega.Equal(int32(3)))
		}).WithTimeout(2 * suite.Config.SyncPeriod.Duration).WithPolling(time.Second).Should(gomega.Succeed())
		_, err = env.Controllers.LeaderGauge(ctx, syncPeriodGauge, map[string]string{"namespace": f.Namespace, "hpa_name": name})
		gomega.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("no series")), "the period series with HPAConfigurableSyncPeriod off")
	})
})
