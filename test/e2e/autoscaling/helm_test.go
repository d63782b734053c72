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
	"path/filepath"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// The release the Helm spec installs: its name is the chart's, so that
// every object is named kube-hpa.
const (
	helmRelease   = "kube-hpa"
	helmNamespace = "kube-hpa"
	crdName       = "horizontalpodautoscalers.autoscaling.kube-hpa.io"
)

// startChartEnvironment starts, for the running spec, an environment of
// its own without a controller, CRD or RBAC (the chart installs them; in
// the suite's environment its controller would fight the suite's over
// every HPA), with the metrics adapter, and stops it after the spec.
func startChartEnvironment(ctx context.Context) (*framework.Local, *framework.Environment) {
	ginkgo.GinkgoHelper()
	begin := time.Now()
	local, err := framework.StartLocal(klog.NewContext(ctx, ginkgo.GinkgoLogr), framework.LocalOptions{
		RepoRoot:     suite.Config.RepoRoot,
		Nodes:        1,
		SyncPeriod:   syncPeriod,
		NoController: true,
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting an environment for the chart")
	ginkgo.DeferCleanup(local.Stop)
	ginkgo.AddReportEntry("environment of the Helm chart", local.Config().LogDir+" (started in "+time.Since(begin).Round(time.Second).String()+")")
	env, err := framework.NewEnvironment(local.Config())
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return local, env
}

// rulesOf reads the rules of the ClusterRole or Role of a manifest file.
func rulesOf(file, kind string) []rbacv1.PolicyRule {
	ginkgo.GinkgoHelper()
	objs, err := framework.ReadManifests(file)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	o, err := framework.FindManifest(objs, kind)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var role rbacv1.ClusterRole // a Role's rules read the same
	gomega.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role)).To(gomega.Succeed())
	return role.Rules
}

var _ = sigDescribe([]string{featureHPA, featureFallback, crdMode, "Helm"}, "Helm chart charts/kube-hpa", func() {
	ginkgo.It("should install the packaged chart with helm, scale an HPA, keep scaling through helm upgrade, and leave the CRD on helm uninstall", func(ctx context.Context) {
		requireLocal()
		local, env := startChartEnvironment(ctx)
		helm, err := framework.NewHelm(env.Config, filepath.Join(filepath.Dir(env.Config.LogDir), "helm"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		replicas, err := local.NewDeploymentReplicas(2, filepath.Join(filepath.Dir(env.Config.LogDir), "chart-replicas"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(replicas.Stop)
		ginkgo.By("helm package, as make release packages the chart: the .tgz must carry every file it needs")
		packaged := filepath.Join(filepath.Dir(env.Config.LogDir), "chart")
		out, err := helm.Run(ctx, "package", filepath.Join(suite.Config.RepoRoot, "charts", "kube-hpa"),
			"--version", "0.0.0-e2e", "--app-version", "v0.0.0-e2e", "--destination", packaged)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		chart := filepath.Join(packaged, "kube-hpa-0.0.0-e2e.tgz")
		gomega.Expect(out).To(gomega.ContainSubstring(chart))
		// The suite's sync period, so that the scaling below takes seconds;
		// the webhook Service's port is where the local replicas' round
		// robin listens; the fallback is alpha, off in the chart as in the
		// binary.
		values := []string{
			"--set", "webhook.service.port=" + fmt.Sprint(replicas.WebhookPort()),
			"--set", "featureGates.HPAExternalMetricFallback=true",
			"--set", "extraArgs={--horizontal-pod-autoscaler-sync-period=" + syncPeriod.String() + "}",
		}

		ginkgo.By("helm install")
		out, err = helm.Run(ctx, append([]string{"install", helmRelease, chart, "--namespace", helmNamespace, "--create-namespace", "--wait", "--timeout", "2m"}, values...)...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(out).To(gomega.ContainSubstring("kept by helm uninstall"), "NOTES.txt says that the CRD stays")
		ginkgo.By("checking that the chart grants what deploy/rbac.yaml grants")
		rbacFile := filepath.Join(suite.Config.RepoRoot, "deploy", "rbac.yaml")
		role, err := env.Kube.RbacV1().ClusterRoles().Get(ctx, helmRelease, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(role.Rules).To(gomega.Equal(rulesOf(rbacFile, "ClusterRole")), "the chart's ClusterRole")
		lease, err := env.Kube.RbacV1().Roles(helmNamespace).Get(ctx, helmRelease+"-leader-election", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(lease.Rules).To(gomega.Equal(rulesOf(rbacFile, "Role")), "the chart's leader election Role")
		ginkgo.By("checking that the chart aggregates the kind to admin, edit and view as deploy/aggregated-roles.yaml does")
		aggregated, err := framework.ReadManifests(filepath.Join(suite.Config.RepoRoot, "deploy", "aggregated-roles.yaml"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(aggregated).NotTo(gomega.BeEmpty())
		for _, o := range aggregated {
			var want rbacv1.ClusterRole
			gomega.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &want)).To(gomega.Succeed())
			// The release is named kube-hpa, as deploy/'s objects are.
			got, err := env.Kube.RbacV1().ClusterRoles().Get(ctx, want.Name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the chart's ClusterRole %s", want.Name)
			gomega.Expect(got.Rules).To(gomega.Equal(want.Rules), "the rules of %s", want.Name)
			for k, v := range want.Labels {
				if strings.HasPrefix(k, "rbac.authorization.k8s.io/aggregate-to-") {
					gomega.Expect(got.Labels).To(gomega.HaveKeyWithValue(k, v), "%s is aggregated as deploy/'s", want.Name)
				}
			}
		}

		ginkgo.By("running the replicas of the chart's Deployment, under its ServiceAccount")
		gomega.Expect(framework.ExposeServiceOnLoopback(ctx, env.Kube, helmNamespace, helmRelease+"-webhook")).To(gomega.Succeed())
		gomega.Expect(replicas.Start(ctx, helmNamespace, helmRelease)).To(gomega.Succeed())
		gomega.Expect(replicas.WaitReady(ctx, time.Minute)).To(gomega.Succeed(), "logs %v", replicas.LogPaths())
		ginkgo.AddReportEntry("args of the chart's Deployment, run locally", strings.Join(replicas.Args(), " "))

		f := framework.NewFrameworkIn(ctx, "helm", env)
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "30")
		ginkgo.By("the API server calls the chart's webhook, through its Service, with its CA")
		gomega.Expect(env.WaitWebhook(ctx, time.Minute)).To(gomega.Succeed())
		ginkgo.By("an HPA with a fallback scales: 30 asks for 3")
		f.CreateHPA(ctx, framework.Extended, fallbackHPA(name, 1, 6, fallbackMetric(metric, 2)))
		f.WaitForReplicas(ctx, name, 3, reaction())
		f.WaitForCondition(ctx, framework.Extended, name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())

		ginkgo.By("helm upgrade: a new flag, the same certificate")
		before, err := env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, helmRelease, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		values[len(values)-1] = "extraArgs={--horizontal-pod-autoscaler-sync-period=" + syncPeriod.String() + ",--v=2}"
		_, err = helm.Run(ctx, append([]string{"upgrade", helmRelease, chart, "--namespace", helmNamespace, "--wait", "--timeout", "2m"}, values...)...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		after, err := env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, helmRelease, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(after.Webhooks[0].ClientConfig.CABundle).To(gomega.Equal(before.Webhooks[0].ClientConfig.CABundle),
			"the upgrade kept the webhook's CA, so the running pods' certificate stays valid")
		ginkgo.By("the old pods scale until the rollout")
		f.SetExternalMetric(ctx, metric, "40")
		f.WaitForReplicas(ctx, name, 4, reaction())
		ginkgo.By("rolling out the upgraded pod template")
		gomega.Expect(framework.ExposeServiceOnLoopback(ctx, env.Kube, helmNamespace, helmRelease+"-webhook")).To(gomega.Succeed())
		gomega.Expect(replicas.Start(ctx, helmNamespace, helmRelease)).To(gomega.Succeed())
		gomega.Expect(replicas.Args()).To(gomega.ContainElement("--v=2"), "the upgraded Deployment's args")
		gomega.Expect(replicas.WaitReady(ctx, time.Minute)).To(gomega.Succeed(), "logs %v", replicas.LogPaths())
		gomega.Expect(env.WaitWebhook(ctx, time.Minute)).To(gomega.Succeed())
		f.SetExternalMetric(ctx, metric, "20")
		f.WaitForReplicas(ctx, name, 2, reaction())
		f.UpdateHPA(ctx, framework.Extended, name, func(h *v2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 7 })

		ginkgo.By("helm uninstall: the CRD and the HPAs stay, and helm says so")
		out, err = helm.Run(ctx, "uninstall", helmRelease, "--namespace", helmNamespace, "--wait")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(out).To(gomega.ContainSubstring("These resources were kept due to the resource policy"))
		gomega.Expect(out).To(gomega.ContainSubstring("[CustomResourceDefinition] " + crdName))
		gomega.Expect(replicas.Stop()).To(gomega.Succeed())
		_, err = env.Dynamic.Resource(framework.Extended.GroupVersionResource()).Namespace(f.Namespace).Get(ctx, name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the HPA outlives the release")
		_, err = env.Kube.RbacV1().ClusterRoles().Get(ctx, helmRelease, metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "the ClusterRole is gone: %v", err)
		_, err = env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, helmRelease, metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "the webhook is gone: %v", err)
	})
})
