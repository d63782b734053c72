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
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// ownedHPA is an HPA of Deployment target on External metric at 10 per
// pod, 1 to 6 replicas, scaling down without a window: a valid spec of
// both kinds.
func ownedHPA(name, target, metric string) *v2.HorizontalPodAutoscaler {
	return framework.NoScaleDownStabilization(framework.ExternalHPA(name, target, metric, autoscalingv2.AverageValueMetricType, "10", 1, 6))
}

// settled waits until the HPA of kind has made a pass that found the
// target at want replicas and would keep it there.
func settled(ctx context.Context, f *framework.Framework, kind framework.HPAKind, name string, want int32) {
	ginkgo.GinkgoHelper()
	f.WaitForHPA(ctx, kind, name, reaction(), "a pass that keeps the target where it is", func(h *v2.HorizontalPodAutoscaler) bool {
		active := framework.ConditionMatcher(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound")
		able := framework.ConditionMatcher(autoscalingv2.AbleToScale, corev1.ConditionTrue, "")
		return active(h) && able(h) && h.Status.CurrentReplicas == want && h.Status.DesiredReplicas == want
	})
}

// generation is the Deployment's metadata.generation, which every write of
// its replicas raises.
func generation(ctx context.Context, f *framework.Framework, name string) int64 {
	ginkgo.GinkgoHelper()
	d, err := f.Kube.AppsV1().Deployments(f.Namespace).Get(ctx, name, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return d.Generation
}

// handOver runs migrate --to to on HPA name, of kind from, and checks the
// handover: the old HPA gone, the new one of kind into with want's spec
// and settled at replicas, and the Deployment's scale never written
// meanwhile (no change seen, its generation unchanged).
func handOver(ctx context.Context, f *framework.Framework, name, to string, from, into framework.HPAKind, want *v2.HorizontalPodAutoscaler, replicas int32) {
	ginkgo.GinkgoHelper()
	scale := f.RecordScale(ctx, name)
	defer scale.Stop()
	before := generation(ctx, f, name)
	_, err := suite.Migrate(ctx, f.Namespace, name, to, false)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	expectGone(ctx, f, from, name)
	got, err := f.GetHPA(ctx, into, name)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	expectSameSpec(got, want)
	settled(ctx, f, into, name, replicas)
	gomega.Expect(scale.Changes()).To(gomega.BeEmpty(), "the handover to %s moved the replicas", into)
	gomega.Expect(generation(ctx, f, name)).To(gomega.Equal(before), "the handover to %s wrote the Deployment's scale", into)
}

// expectSameSpec expects got to carry want's spec and behavior.
func expectSameSpec(got, want *v2.HorizontalPodAutoscaler) {
	ginkgo.GinkgoHelper()
	gomega.Expect(apiequality.Semantic.DeepEqual(got.Spec, want.Spec)).To(gomega.BeTrue(),
		"the spec and behavior carried over:\n got %+v\nwant %+v", got.Spec, want.Spec)
}

// expectGone expects the HPA of kind to be deleted.
func expectGone(ctx context.Context, f *framework.Framework, kind framework.HPAKind, name string) {
	ginkgo.GinkgoHelper()
	_, err := f.GetHPA(ctx, kind, name)
	gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "%s HPA %s is gone: %v", kind, name, err)
}

var _ = sigDescribe([]string{featureHPA, crdMode, "Ownership"}, "One autoscaler per target", func() {
	f := newFramework("ownership")

	ginkgo.BeforeEach(func() {
		// Both kinds must be acted on by kube-hpa: --manage-native-hpas.
		requireKind(framework.Native)
	})

	ginkgo.It("should refuse a kube-hpa HPA on a target a native HPA scales, and scale neither while a native HPA shares its target", func(ctx context.Context) {
		const target = "guarded"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, target, 1)
		f.SetExternalMetric(ctx, metric, "30")
		f.CreateHPA(ctx, framework.Native, ownedHPA("native", target, metric))
		f.WaitForReplicas(ctx, target, 3, reaction())

		ginkgo.By("the webhook refuses a kube-hpa HPA on the native HPA's target, naming it")
		err := suite.TryCreateHPA(ctx, f.Namespace, ownedHPA("extended", target, metric), false)
		gomega.Expect(apierrors.IsInvalid(err) || apierrors.IsForbidden(err)).To(gomega.BeTrue(), "refused: %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("spec.scaleTargetRef"))
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("already autoscaled by autoscaling/v2 native"))

		ginkgo.By("once the native HPA is gone, the kube-hpa HPA is let in and takes over")
		f.DeleteHPA(ctx, framework.Native, "native")
		f.CreateHPA(ctx, framework.Extended, ownedHPA("extended", target, metric))
		settled(ctx, f, framework.Extended, "extended", 3)

		ginkgo.By("a native HPA created later on the same target (no webhook sees it) stops both")
		f.CreateHPA(ctx, framework.Native, ownedHPA("late", target, metric))
		c := f.WaitForCondition(ctx, framework.Extended, "extended", autoscalingv2.AbleToScale, corev1.ConditionFalse, "AmbiguousScaleTarget", reaction())
		gomega.Expect(c.Message).To(gomega.ContainSubstring("late"), "the condition names the other autoscaler")
		f.WaitForEvent(ctx, "extended", "AmbiguousScaleTarget", "late", reaction())
		f.WaitForCondition(ctx, framework.Native, "late", autoscalingv2.AbleToScale, corev1.ConditionFalse, "AmbiguousScaleTarget", reaction())
		f.SetExternalMetric(ctx, metric, "50")
		f.EnsureScaleStays(ctx, target, 3, 3*suite.Config.SyncPeriod.Duration+staleness())

		ginkgo.By("the native HPA removed, the kube-hpa HPA scales again")
		f.DeleteHPA(ctx, framework.Native, "late")
		f.WaitForReplicas(ctx, target, 5, reaction())
		f.WaitForCondition(ctx, framework.Extended, "extended", autoscalingv2.AbleToScale, corev1.ConditionTrue, "", reaction())
	})

	ginkgo.It("should migrate a native HPA to a kube-hpa HPA and back without moving the target's replicas", func(ctx context.Context) {
		const name = "migrated"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "30")
		f.CreateHPA(ctx, framework.Native, ownedHPA(name, name, metric))
		f.WaitForReplicas(ctx, name, 3, reaction())
		settled(ctx, f, framework.Native, name, 3)
		native, err := f.GetHPA(ctx, framework.Native, name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		ginkgo.By("migrate --dry-run prints the kube-hpa HPA and changes nothing")
		out, err := suite.Migrate(ctx, f.Namespace, name, framework.MigrateToKubeHPA, true)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(out).To(gomega.ContainSubstring("would create (dry run)"))
		gomega.Expect(out).To(gomega.ContainSubstring("apiVersion: " + v2.SchemeGroupVersion.String()))
		expectGone(ctx, f, framework.Extended, name)

		ginkgo.By("migrate --to kube-hpa: the kube-hpa HPA has the native one's spec and starts from the current count")
		handOver(ctx, f, name, framework.MigrateToKubeHPA, framework.Native, framework.Extended, native, 3)

		ginkgo.By("the kube-hpa HPA is the one that scales now")
		f.SetExternalMetric(ctx, metric, "40")
		f.WaitForReplicas(ctx, name, 4, reaction())
		settled(ctx, f, framework.Extended, name, 4)

		ginkgo.By("migrate --to native: the native HPA has the same spec and starts from the current count")
		handOver(ctx, f, name, framework.MigrateToNative, framework.Extended, framework.Native, native, 4)

		ginkgo.By("the native HPA scales")
		f.SetExternalMetric(ctx, metric, "20")
		f.WaitForReplicas(ctx, name, 2, reaction())
	})

	ginkgo.It("should refuse to migrate a kube-hpa HPA with a fallback to the native kind, and keep it", func(ctx context.Context) {
		requireGate("HPAExternalMetricFallback")
		const name = "kept"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "20")
		f.CreateHPA(ctx, framework.Extended, fallbackHPA(name, 1, 6, fallbackMetric(metric, 4)))
		f.WaitForReplicas(ctx, name, 2, reaction())
		_, err := suite.Migrate(ctx, f.Namespace, name, framework.MigrateToNative, false)
		gomega.Expect(err).To(gomega.HaveOccurred())
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("fields the native HPA lacks"))
		_, err = f.GetHPA(ctx, framework.Extended, name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the kube-hpa HPA stays")
		expectGone(ctx, f, framework.Native, name)
	})
})
