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

// Timings of the behavior specs. Each window or period spans three sync
// periods, so that "not before the window" and "one sync period after"
// are told apart, yet each spec takes well under a minute.
const (
	stabilizationWindow = 20 * time.Second
	policyPeriod        = 15 * time.Second
	// stepSlack absorbs the rounding of the controller's timestamps to the
	// second and the recorder's polling.
	stepSlack = time.Second
)

// behaviorTarget is a Deployment with an HPA on an External metric with
// an AverageValue target of 10: a metric of 10*n asks for n replicas,
// whatever the current count, which keeps each spec's arithmetic obvious.
type behaviorTarget struct {
	f      *framework.Framework
	name   string
	metric string
}

// newBehaviorTarget creates the Deployment at replicas and the HPA with
// behavior, the metric starting at metricValue.
func newBehaviorTarget(ctx context.Context, f *framework.Framework, replicas, minReplicas, maxReplicas int32, metricValue string,
	behavior *v2.HorizontalPodAutoscalerBehavior) *behaviorTarget {
	ginkgo.GinkgoHelper()
	t := &behaviorTarget{f: f, name: "worker", metric: f.UniqueName("queue_depth")}
	f.CreateDeployment(ctx, t.name, replicas)
	f.SetExternalMetric(ctx, t.metric, metricValue)
	hpa := framework.ExternalHPA(t.name, t.name, t.metric, autoscalingv2.AverageValueMetricType, "10", minReplicas, maxReplicas)
	hpa.Spec.Behavior = behavior
	f.CreateHPA(ctx, hpaKind(), hpa)
	return t
}

// pods returns a Pods policy of value pods per policyPeriod.
func podsPolicy(value int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: value, PeriodSeconds: int32(policyPeriod / time.Second)}
}

func percentPolicy(value int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: value, PeriodSeconds: int32(policyPeriod / time.Second)}
}

// expectSteps checks a recorded scale history: exactly the wanted steps,
// each at least policyPeriod after the previous one. The recorder polls,
// so it gets a moment to see the last step the caller already waited for.
func expectSteps(ctx context.Context, r *framework.ScaleRecorder, want ...[2]int32) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func() [][2]int32 { return scaleSteps(r.Changes()) }).
		WithTimeout(2*time.Second).Should(gomega.Equal(want), "the steps of the scale (from, to)")
	changes := r.Changes()
	for i := 1; i < len(changes); i++ {
		gap := changes[i].At.Sub(changes[i-1].At)
		ginkgo.AddReportEntry(fmt.Sprintf("gap between step %d and %d", i, i+1), gap.Round(10*time.Millisecond).String())
		gomega.Expect(gap).To(gomega.BeNumerically(">=", policyPeriod-stepSlack),
			"step %d came %v after the previous one, within the policy's period of %v", i+1, gap, policyPeriod)
	}
}

// scaleSteps are the (from, to) pairs of changes.
func scaleSteps(changes []framework.ScaleChange) [][2]int32 {
	var out [][2]int32
	for _, c := range changes {
		out = append(out, [2]int32{c.From, c.To})
	}
	return out
}

var _ = sigDescribe([]string{featureHPA}, "Horizontal pod autoscaling (non-default behavior, external metrics)", func() {
	f := newFramework("behavior")

	ginkgo.Describe("with a short downscale stabilization window", func() {
		ginkgo.It("should scale down only after the stabilization window", func(ctx context.Context) {
			t := newBehaviorTarget(ctx, f, 1, 1, 3, "30", &v2.HorizontalPodAutoscalerBehavior{
				ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To(int32(stabilizationWindow / time.Second))},
			})
			ginkgo.By("waiting for the scale-up to 3, which no window delays")
			f.WaitForReplicas(ctx, t.name, 3, reaction())

			ginkgo.By("dropping the metric to 0")
			f.SetExternalMetric(ctx, t.metric, "0")
			dropped := time.Now()
			// The window holds the recommendations of the last 20s, made
			// every sync period; the last high one may be up to one period
			// older than the drop.
			hold := stabilizationWindow - suite.Config.SyncPeriod.Duration - stepSlack
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.AbleToScale, corev1.ConditionTrue, "ScaleDownStabilized", reaction())
			f.EnsureScaleStays(ctx, t.name, 3, max(hold-time.Since(dropped), 0))

			ginkgo.By("waiting for the scale-down once the window has passed")
			// The drop may reach the controller a sharing window late.
			f.WaitForScale(ctx, t.name, 1, stabilizationWindow+2*suite.Config.SyncPeriod.Duration+staleness())
			took := time.Since(dropped)
			ginkgo.AddReportEntry("scale-down after the drop", took.Round(10*time.Millisecond).String())
			gomega.Expect(took).To(gomega.BeNumerically(">=", hold))
			// The last high recommendation comes at most a sharing window
			// after the drop; the first pass after it leaves the window
			// scales down.
			gomega.Expect(took).To(gomega.BeNumerically("<=",
				stabilizationWindow+staleness()+suite.Config.SyncPeriod.Duration+2*stepSlack))
		})
	})

	ginkgo.Describe("with scale limited by number of Pods rate", func() {
		ginkgo.It("should scale up no more than given number of Pods per period", func(ctx context.Context) {
			t := newBehaviorTarget(ctx, f, 1, 1, 3, "10", &v2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{podsPolicy(1)}},
			})
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
			steps := f.RecordScale(ctx, t.name)
			ginkgo.By("asking for 10 replicas (capped at 3) at once")
			f.SetExternalMetric(ctx, t.metric, "100")
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleUpLimit", reaction())
			f.WaitForScale(ctx, t.name, 3, policyPeriod+reaction())
			expectSteps(ctx, steps, [2]int32{1, 2}, [2]int32{2, 3})
		})

		ginkgo.It("should scale down no more than given number of Pods per period", func(ctx context.Context) {
			t := newBehaviorTarget(ctx, f, 3, 1, 3, "30", &v2.HorizontalPodAutoscalerBehavior{
				ScaleDown: &autoscalingv2.HPAScalingRules{
					StabilizationWindowSeconds: ptr.To[int32](0),
					Policies:                   []autoscalingv2.HPAScalingPolicy{podsPolicy(1)},
				},
			})
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
			steps := f.RecordScale(ctx, t.name)
			ginkgo.By("asking for 0 replicas (minReplicas 1) at once")
			f.SetExternalMetric(ctx, t.metric, "0")
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleDownLimit", reaction())
			f.WaitForScale(ctx, t.name, 1, policyPeriod+reaction())
			expectSteps(ctx, steps, [2]int32{3, 2}, [2]int32{2, 1})
		})
	})

	ginkgo.Describe("with scale limited by percentage", func() {
		ginkgo.It("should scale up no more than given percentage of current Pods per period", func(ctx context.Context) {
			t := newBehaviorTarget(ctx, f, 1, 1, 4, "10", &v2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{percentPolicy(100)}},
			})
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
			steps := f.RecordScale(ctx, t.name)
			ginkgo.By("asking for 10 replicas (capped at 4) at once")
			f.SetExternalMetric(ctx, t.metric, "100")
			f.WaitForScale(ctx, t.name, 4, policyPeriod+reaction())
			// 100% of the replicas at the start of the period: 1 -> 2 -> 4.
			expectSteps(ctx, steps, [2]int32{1, 2}, [2]int32{2, 4})
		})

		ginkgo.It("should scale down no more than given percentage of current Pods per period", func(ctx context.Context) {
			t := newBehaviorTarget(ctx, f, 4, 1, 4, "40", &v2.HorizontalPodAutoscalerBehavior{
				ScaleDown: &autoscalingv2.HPAScalingRules{
					StabilizationWindowSeconds: ptr.To[int32](0),
					Policies:                   []autoscalingv2.HPAScalingPolicy{percentPolicy(50)},
				},
			})
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
			steps := f.RecordScale(ctx, t.name)
			ginkgo.By("asking for 0 replicas (minReplicas 1) at once")
			f.SetExternalMetric(ctx, t.metric, "0")
			f.WaitForScale(ctx, t.name, 1, policyPeriod+reaction())
			// 50% of the replicas at the start of the period: 4 -> 2 -> 1.
			expectSteps(ctx, steps, [2]int32{4, 2}, [2]int32{2, 1})
		})
	})

	ginkgo.Describe("with autoscaling disabled", func() {
		ginkgo.It("shouldn't scale up", func(ctx context.Context) {
			t := newBehaviorTarget(ctx, f, 1, 1, 3, "30", &v2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.DisabledPolicySelect)},
			})
			ginkgo.By("waiting for the HPA to want 3 replicas and be held at 1")
			hpa := f.WaitForHPA(ctx, hpaKind(), t.name, reaction(), "metric read and scale-up limited",
				func(h *v2.HorizontalPodAutoscaler) bool {
					return framework.ConditionMatcher(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound")(h) &&
						framework.ConditionMatcher(autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleUpLimit")(h)
				})
			gomega.Expect(hpa.Status.DesiredReplicas).To(gomega.Equal(int32(1)))
			f.EnsureScaleStays(ctx, t.name, 1, 2*suite.Config.SyncPeriod.Duration)
		})

		ginkgo.It("shouldn't scale down", func(ctx context.Context) {
			t := newBehaviorTarget(ctx, f, 1, 1, 3, "30", &v2.HorizontalPodAutoscalerBehavior{
				ScaleDown: &autoscalingv2.HPAScalingRules{
					StabilizationWindowSeconds: ptr.To[int32](0),
					SelectPolicy:               ptr.To(autoscalingv2.DisabledPolicySelect),
				},
			})
			ginkgo.By("scaling up, which stays enabled")
			f.WaitForReplicas(ctx, t.name, 3, reaction())
			ginkgo.By("dropping the metric to 0")
			f.SetExternalMetric(ctx, t.metric, "0")
			f.WaitForCondition(ctx, hpaKind(), t.name, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleDownLimit", reaction())
			f.EnsureScaleStays(ctx, t.name, 3, 2*suite.Config.SyncPeriod.Duration)
		})
	})
})
