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
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

const featureMetricSource = "Feature:HPAMetricSource"

// missingSourceGroup is a group no APIService serves.
const missingSourceGroup = "missing.second-adapter.kube-hpa.io"

// requireMetricSources skips a spec where the controller does not route
// metric sources or the environment runs no second adapter.
func requireMetricSources() {
	requireLocal()
	if !suite.Config.FeatureGates[string(features.HPAMetricSource)] {
		ginkgo.Skip(fmt.Sprintf("the controller does not run with %s=true", features.HPAMetricSource))
	}
	if suite.Config.SourceMetricsConfigMap == "" {
		ginkgo.Skip("the environment runs no second metrics adapter")
	}
}

// fromSource routes m to group.
func fromSource(m v2.MetricSpec, group string) v2.MetricSpec {
	for _, id := range m.Identifiers() {
		id.Source = &v2.MetricSourceReference{APIGroup: group}
	}
	return m
}

func podsAverageMetric(name, averageValue string) v2.MetricSpec {
	q := resource.MustParse(averageValue)
	return v2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &v2.PodsMetricSource{
		Metric: v2.MetricIdentifier{Name: name},
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
	}}
}

// controllerServiceAccount is who the HPA controller acts as: kube-hpa's
// ServiceAccount, or in in-tree mode kube-controller-manager's
// horizontal-pod-autoscaler (--use-service-account-credentials), which the
// KEP's provider contract names.
func controllerServiceAccount() rbacv1.Subject {
	if suite.Config.Mode == framework.ModeInTree {
		return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "horizontal-pod-autoscaler", Namespace: metav1.NamespaceSystem}
	}
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "hpa-controller-manager", Namespace: suite.Config.ControllerNamespace}
}

// grantSources lets the controller read the metrics of groups, as
// deploy/examples/metric-sources or the Helm value rbac.metricSources does
// (in-tree: as the provider's own ClusterRole would), until the spec ends.
func grantSources(ctx context.Context, f *framework.Framework, groups ...string) {
	ginkgo.GinkgoHelper()
	name := "kube-hpa-e2e:" + f.Namespace
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{{APIGroups: groups, Resources: []string{"*"}, Verbs: []string{"get", "list"}}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{controllerServiceAccount()}}
	_, err := f.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) error {
		return f.Kube.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
	_, err = f.Kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) error {
		return f.Kube.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
	})
}

// sourceOf returns the source group status reports for the metric name of
// type t, and whether status has the metric.
func sourceOf(h *v2.HorizontalPodAutoscaler, t autoscalingv2.MetricSourceType, name string) (string, bool) {
	for _, m := range h.Status.CurrentMetrics {
		switch {
		case t == autoscalingv2.PodsMetricSourceType && m.Pods != nil && m.Pods.Metric.Name == name:
			return m.Pods.Metric.SourceGroup(), true
		case t == autoscalingv2.ExternalMetricSourceType && m.External != nil && m.External.Metric.Name == name:
			return m.External.Metric.SourceGroup(), true
		}
	}
	return "", false
}

// Both modes: kube-hpa on the extended kind, and in-tree the patched
// kube-apiserver and kube-controller-manager on native autoscaling/v2.
var _ = sigDescribe([]string{featureHPA, featureMetricSource, featureFallback}, "Horizontal pod autoscaling (per-metric source routing)", func() {
	f := newFramework("metric-source")

	// Long (three minutes of failures before the fallback), so it runs
	// among the fallback specs.
	ginkgo.It("should read each metric from its own adapter, name the API group when a source fails, and fall back on a failing source", afterShortSpecs, func(ctx context.Context) {
		requireMetricSources()
		f.TolerateDisruptions(ctx)
		const name, routedOnly, missing = "worker", "routed-only", "missing-source"
		const fallbackReplicas = 6
		healthy, queue, queued := f.UniqueName("requests"), f.UniqueName("queue_depth"), f.UniqueName("queued_requests")

		// The first adapter answers queue_depth too, with a value that
		// would ask for 9 replicas: a fetch sent to the wrong adapter
		// shows in the count.
		f.SetExternalMetric(ctx, healthy, "20")
		f.SetExternalMetric(ctx, queue, "90")
		f.SetSourceExternalMetric(ctx, queue, "40")
		f.SetSourcePodsMetric(ctx, queued, "10")
		for _, d := range []string{name, routedOnly, missing} {
			f.CreateDeployment(ctx, d, 1)
		}
		routedQueue := fromSource(fallbackMetric(queue, fallbackReplicas), framework.SourceExternalGroup)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 10,
			fallbackMetric(healthy, 0), routedQueue, fromSource(podsAverageMetric(queued, "10"), framework.SourceCustomGroup)))
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(routedOnly, 1, 10, fromSource(fallbackMetric(queue, 0), framework.SourceExternalGroup)))
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(missing, 1, 10, fromSource(fallbackMetric(queue, 0), missingSourceGroup)))

		ginkgo.By("refusing the sources until the controller may read their groups: a 403 that names the group")
		cond := f.WaitForCondition(ctx, hpaKind(), routedOnly, autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetExternalMetric", tolerantReaction())
		gomega.Expect(cond.Message).To(gomega.And(
			gomega.ContainSubstring(fmt.Sprintf("external metrics API of API group %q", framework.SourceExternalGroup)),
			gomega.ContainSubstring("forbidden")))
		f.WaitForEvent(ctx, name, "FailedGetPodsMetric", fmt.Sprintf("custom metrics API of API group %q", framework.SourceCustomGroup), tolerantReaction())

		ginkgo.By("granting the groups: each metric is read from its own adapter, and status says which")
		grantSources(ctx, f, framework.SourceCustomGroup, framework.SourceExternalGroup, missingSourceGroup)
		f.WaitForReplicas(ctx, name, 4, tolerantReaction())
		h := f.WaitForHPA(ctx, hpaKind(), name, tolerantReaction(), "every metric's value in status", func(h *v2.HorizontalPodAutoscaler) bool {
			// A metric whose fetch failed keeps its place in currentMetrics
			// as an entry with no type, as upstream's does, and one valid
			// metric is enough for ScalingActive: the first adapter can
			// still be without the value this spec just gave it.
			for _, m := range h.Status.CurrentMetrics {
				if m.Type == "" {
					return false
				}
			}
			return len(h.Status.CurrentMetrics) == 3 && h.Status.CurrentReplicas == 4 &&
				framework.ConditionMatcher(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound")(h)
		})
		for _, want := range []struct {
			t     autoscalingv2.MetricSourceType
			name  string
			group string
		}{
			{autoscalingv2.ExternalMetricSourceType, healthy, ""},
			{autoscalingv2.ExternalMetricSourceType, queue, framework.SourceExternalGroup},
			{autoscalingv2.PodsMetricSourceType, queued, framework.SourceCustomGroup},
		} {
			group, ok := sourceOf(h, want.t, want.name)
			gomega.Expect(ok).To(gomega.BeTrue(), "status of %s", want.name)
			gomega.Expect(group).To(gomega.Equal(want.group), "the source status reports for %s", want.name)
		}
		gomega.Expect(framework.ExternalMetricStatus(h, queue).Current.AverageValue.String()).To(gomega.Equal("10"),
			"40 from the second adapter over 4 replicas, not the first adapter's 90")

		ginkgo.By("naming the group that no APIService serves")
		cond = f.WaitForCondition(ctx, hpaKind(), missing, autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetExternalMetric", tolerantReaction())
		gomega.Expect(cond.Message).To(gomega.ContainSubstring(fmt.Sprintf("external metrics API of API group %q", missingSourceGroup)))
		gomega.Expect(strings.Contains(cond.Message, "forbidden")).To(gomega.BeFalse(), "the group is granted: %s", cond.Message)

		ginkgo.By("failing the second adapter's queue_depth: its fallback takes over after failureDurationSeconds")
		f.SetSourceExternalMetric(ctx, queue, string(framework.FaultError))
		firstFailure := waitForFirstFailure(ctx, f, name, queue, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		consistentlyUntil(ctx, deadline, stillFailing(f, name, queue, firstFailure, 4))
		cond = waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		expectActivationAtDeadline(cond, deadline)
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", activatedMessage(queue, fallbackReplicas), reaction())
		f.WaitForReplicas(ctx, name, fallbackReplicas, tolerantReaction())
		h, err := f.GetHPA(ctx, hpaKind(), name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		st := framework.ExternalMetricStatus(h, queue)
		gomega.Expect(st.FallbackStatus).To(gomega.Equal(v2.FallbackStatusFallback))
		gomega.Expect(st.Metric.SourceGroup()).To(gomega.Equal(framework.SourceExternalGroup))
		gomega.Expect(time.Since(firstFailure)).To(gomega.BeNumerically(">=", failureDuration))
	})
})
