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

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// Timing of the fallback specs. failureDurationSeconds cannot be shorter
// than 180 seconds of real time, so every spec of KEP-5679 waits that
// long: they run in parallel, on a ginkgo process each, and the suite
// needs at least as many processes as there are such specs (see
// afterShortSpecs) for their waits to overlap.
const (
	// failureDuration is failureDurationSeconds of every fallback here:
	// the minimum the API allows.
	failureDuration = 180 * time.Second
	// activationSlack bounds how late after firstFailureTime +
	// failureDurationSeconds a fallback may activate. The controller wakes
	// itself up at that deadline; the bound covers the whole seconds of
	// the timestamps in status and the pass itself, and stays below the
	// sync period, so that a controller that waited for its next periodic
	// sync would miss it in most runs.
	activationSlack = 3 * time.Second
	// disruptionAllowance is how much longer a wait of a spec that
	// tolerates disruptions may take because a disruptive spec runs
	// beside it: an outage of the metrics adapter across a deadline plus
	// the aggregator noticing its return, or a controller handing over.
	disruptionAllowance = 45 * time.Second
)

// afterShortSpecs schedules the long specs (three minutes or more of
// failures) after every other parallel spec: ginkgo hands specs out in
// priority order, so by the time a disruptive spec of this group starts,
// every spec that does not tolerate disruptions has already started, and
// the disruptive one need only wait for them to end. It also lets the
// short specs run first on every process.
const afterShortSpecs = ginkgo.SpecPriority(-1)

// tolerantReaction is reaction for the specs that run beside the
// disruptive ones.
func tolerantReaction() time.Duration { return reaction() + disruptionAllowance }

// fallbackMetric is an External metric with an AverageValue target of 10
// (a value of 10*n asks for n replicas, whatever the current count) and,
// unless fallbackReplicas is 0, a fallback of fallbackReplicas after
// failureDuration.
func fallbackMetric(metric string, fallbackReplicas int32) v2.MetricSpec {
	var fallback *v2.ExternalMetricFallback
	if fallbackReplicas > 0 {
		fallback = framework.Fallback(fallbackReplicas, failureDuration)
	}
	return framework.AverageValueExternalMetric(metric, "10", fallback)
}

// fallbackHPA is an HPA on Deployment name with no scale-down
// stabilization, so that a scale-down to a fallback count is seen at once.
func fallbackHPA(name string, minReplicas, maxReplicas int32, metrics ...v2.MetricSpec) *v2.HorizontalPodAutoscaler {
	return framework.NoScaleDownStabilization(framework.MultiMetricHPA(name, name, minReplicas, maxReplicas, metrics...))
}

// waitForFirstFailure waits until the HPA's status records a first
// failure of metric, not yet in fallback, and returns its time.
func waitForFirstFailure(ctx context.Context, f *framework.Framework, hpa, metric string, timeout time.Duration) time.Time {
	ginkgo.GinkgoHelper()
	got := f.WaitForHPA(ctx, hpaKind(), hpa, timeout, "a firstFailureTime for "+metric, func(h *v2.HorizontalPodAutoscaler) bool {
		st := framework.ExternalMetricStatus(h, metric)
		return st != nil && st.FirstFailureTime != nil
	})
	st := framework.ExternalMetricStatus(got, metric)
	gomega.Expect(st.FallbackStatus).To(gomega.Equal(v2.FallbackStatusNormal), "a metric that just failed is not in fallback yet")
	ginkgo.By(fmt.Sprintf("%s: first failure of %s at %s, fallback due at %s", hpa, metric,
		st.FirstFailureTime.Format(time.RFC3339), st.FirstFailureTime.Add(failureDuration).Format(time.RFC3339)))
	return st.FirstFailureTime.Time
}

// check is one assertion of consistentlyUntil.
type check func(ctx context.Context, g gomega.Gomega)

// stillFailing checks that metric keeps its first failure time and is not
// in fallback, and that the HPA's Deployment (of the same name) keeps
// replicas: nothing happens before the deadline.
func stillFailing(f *framework.Framework, hpa, metric string, firstFailure time.Time, replicas int32) check {
	return func(ctx context.Context, g gomega.Gomega) {
		h, err := f.GetHPA(ctx, hpaKind(), hpa)
		g.Expect(err).NotTo(gomega.HaveOccurred())
		st := framework.ExternalMetricStatus(h, metric)
		g.Expect(st).NotTo(gomega.BeNil(), "the status of %s", metric)
		g.Expect(st.FirstFailureTime).NotTo(gomega.BeNil(), "%s: firstFailureTime is kept through consecutive failures", metric)
		g.Expect(st.FirstFailureTime.Time).To(gomega.BeTemporally("==", firstFailure), "%s: firstFailureTime is kept", metric)
		g.Expect(st.FallbackStatus).To(gomega.Equal(v2.FallbackStatusNormal), "%s: not in fallback before the deadline", metric)
		g.Expect(framework.FindCondition(h, v2.ExternalMetricFallbackActive)).NotTo(gomega.Satisfy(conditionIsTrue),
			"%s: ExternalMetricFallbackActive before the deadline", hpa)
		g.Expect(scaleOf(ctx, f, hpa)).To(gomega.Equal(replicas), "Deployment %s before the deadline", hpa)
	}
}

// scaleIs checks a Deployment's wanted replicas.
func scaleIs(f *framework.Framework, name string, replicas int32) check {
	return func(ctx context.Context, g gomega.Gomega) {
		g.Expect(scaleOf(ctx, f, name)).To(gomega.Equal(replicas), "Deployment %s", name)
	}
}

func scaleOf(ctx context.Context, f *framework.Framework, name string) (int32, error) {
	r, err := f.Replicas(ctx, name)
	return r.Spec, err
}

func conditionIsTrue(c *autoscalingv2.HorizontalPodAutoscalerCondition) bool {
	return c != nil && c.Status == corev1.ConditionTrue
}

// consistentlyUntil asserts checks until shortly before until: the
// deadline of a fallback, which may not activate a moment earlier.
func consistentlyUntil(ctx context.Context, until time.Time, checks ...check) {
	ginkgo.GinkgoHelper()
	d := time.Until(until) - time.Second
	if d <= 0 {
		return
	}
	gomega.Consistently(ctx, func(g gomega.Gomega) {
		for _, c := range checks {
			c(ctx, g)
		}
	}).WithTimeout(d).WithPolling(time.Second).Should(gomega.Succeed())
}

// waitForFallbackActive waits for ExternalMetricFallbackActive=True after
// deadline, checks it did not come before, and returns it.
func waitForFallbackActive(ctx context.Context, f *framework.Framework, hpa string, deadline time.Time, reaction time.Duration) autoscalingv2.HorizontalPodAutoscalerCondition {
	ginkgo.GinkgoHelper()
	cond := f.WaitForCondition(ctx, hpaKind(), hpa, v2.ExternalMetricFallbackActive, corev1.ConditionTrue, "FallbackActive",
		max(time.Until(deadline), 0)+reaction)
	late := cond.LastTransitionTime.Sub(deadline)
	ginkgo.AddReportEntry(hpa+": fallback activation after its deadline", late.String())
	gomega.Expect(cond.LastTransitionTime.Time).To(gomega.BeTemporally(">=", deadline),
		"the fallback of %s activated before firstFailureTime + failureDurationSeconds (%s)", hpa, deadline.Format(time.RFC3339))
	return cond
}

// expectActivationAtDeadline checks that a fallback activated within
// activationSlack of its deadline: the controller woke up for it.
func expectActivationAtDeadline(cond autoscalingv2.HorizontalPodAutoscalerCondition, deadline time.Time) {
	ginkgo.GinkgoHelper()
	gomega.Expect(cond.LastTransitionTime.Time).To(gomega.BeTemporally("<=", deadline.Add(activationSlack)),
		"the fallback activated %v after firstFailureTime + failureDurationSeconds; the controller schedules a pass for that moment",
		cond.LastTransitionTime.Sub(deadline))
}

// activatedMessage is KEP-5679's event message.
func activatedMessage(metric string, replicas int32) string {
	return fmt.Sprintf("Fallback activated for external metric '%s' after %v of consecutive failures, using fallback replica count: %d",
		metric, failureDuration, replicas)
}

func deactivatedMessage(metric string) string {
	return fmt.Sprintf("External metric '%s' recovered, fallback deactivated", metric)
}

var _ = sigDescribe([]string{featureHPA, featureFallback}, "Horizontal pod autoscaling (external metric fallback)", func() {
	f := newFramework("fallback")

	ginkgo.It("should scale to the configured fallback replica count once an external metric has failed for failureDurationSeconds", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetricFault(ctx, metric, framework.FaultError)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 5, fallbackMetric(metric, 3)))

		firstFailure := waitForFirstFailure(ctx, f, name, metric, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		ginkgo.By("checking that nothing scales before failureDurationSeconds of failures")
		consistentlyUntil(ctx, deadline, stillFailing(f, name, metric, firstFailure, 1))

		ginkgo.By("waiting for the fallback replica count")
		cond := waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		expectActivationAtDeadline(cond, deadline)
		f.WaitForReplicas(ctx, name, 3, tolerantReaction())
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", activatedMessage(metric, 3), reaction())
		f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 3", reaction())
	})

	// A provider that hangs instead of answering with an error: each fetch
	// is bounded (kube-hpa's --horizontal-pod-autoscaler-metric-fetch-
	// timeout; in the in-tree mode, half the sync period for a metric with
	// a fallback), so the failure counts as one from an adapter that
	// errors would, and the worker is soon free for the other HPAs.
	ginkgo.It("should fall back within a sync period of its deadline when the metrics adapter hangs, while other HPAs keep scaling", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const hanging, healthy = "hung-worker", "busy-worker"
		hangingMetric, healthyMetric := f.UniqueName("queue_depth_hung"), f.UniqueName("queue_depth_ok")
		f.CreateDeployment(ctx, hanging, 1)
		f.CreateDeployment(ctx, healthy, 1)
		f.SetExternalMetricFault(ctx, hangingMetric, framework.FaultHang)
		f.SetExternalMetric(ctx, healthyMetric, "10")
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(hanging, 1, 5, fallbackMetric(hangingMetric, 3)))
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(healthy, 1, 5, fallbackMetric(healthyMetric, 0)))

		firstFailure := waitForFirstFailure(ctx, f, hanging, hangingMetric, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)

		ginkgo.By("raising the other HPA's metric while the adapter hangs for the first: it scales as usual")
		f.SetExternalMetric(ctx, healthyMetric, "30")
		f.WaitForReplicas(ctx, healthy, 3, tolerantReaction())
		consistentlyUntil(ctx, deadline, stillFailing(f, hanging, hangingMetric, firstFailure, 1))

		ginkgo.By("waiting for the fallback of the hanging metric")
		cond := waitForFallbackActive(ctx, f, hanging, deadline, tolerantReaction())
		gomega.Expect(cond.LastTransitionTime.Time).To(gomega.BeTemporally("<=", deadline.Add(suite.Config.SyncPeriod.Duration)),
			"the fallback of a hanging metric activated %v after firstFailureTime + failureDurationSeconds; its fetches are bounded within a sync period",
			cond.LastTransitionTime.Sub(deadline))
		f.WaitForReplicas(ctx, hanging, 3, tolerantReaction())
		f.WaitForEvent(ctx, hanging, "ExternalMetricFallbackActivated", activatedMessage(hangingMetric, 3), reaction())
	})

	ginkgo.It("should set the ExternalMetricFallbackActive condition to True when fallback activates", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 2)
		// An empty list of series is a failure too (the error fault is the
		// previous spec's).
		f.SetExternalMetricFault(ctx, metric, framework.FaultEmpty)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 6, fallbackMetric(metric, 4)))

		firstFailure := waitForFirstFailure(ctx, f, name, metric, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		ginkgo.By("checking the condition is False while the metric fails but is not in fallback")
		f.WaitForCondition(ctx, hpaKind(), name, v2.ExternalMetricFallbackActive, corev1.ConditionFalse, "NoFallbackActive", reaction())
		consistentlyUntil(ctx, deadline, stillFailing(f, name, metric, firstFailure, 2))

		ginkgo.By("waiting for the condition to turn True at the deadline")
		cond := waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		expectActivationAtDeadline(cond, deadline)
		gomega.Expect(cond.Message).To(gomega.ContainSubstring(metric))
		f.WaitForReplicas(ctx, name, 4, tolerantReaction())

		ginkgo.By("checking later passes keep the condition and its transition time")
		gomega.Consistently(ctx, func(g gomega.Gomega) {
			h, err := f.GetHPA(ctx, hpaKind(), name)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			c := framework.FindCondition(h, v2.ExternalMetricFallbackActive)
			g.Expect(c).NotTo(gomega.BeNil())
			g.Expect(c.Status).To(gomega.Equal(corev1.ConditionTrue))
			g.Expect(c.LastTransitionTime.Time).To(gomega.BeTemporally("==", cond.LastTransitionTime.Time))
		}).WithTimeout(2 * suite.Config.SyncPeriod.Duration).WithPolling(time.Second).Should(gomega.Succeed())
	})

	ginkgo.It("should reset the failure tracking and resume normal scaling once the external metric is retrieved again", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetricFault(ctx, metric, framework.FaultError)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 6, fallbackMetric(metric, 5)))

		firstFailure := waitForFirstFailure(ctx, f, name, metric, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		consistentlyUntil(ctx, deadline, stillFailing(f, name, metric, firstFailure, 1))
		ginkgo.By("waiting for the fallback replica count")
		waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		f.WaitForReplicas(ctx, name, 5, tolerantReaction())

		ginkgo.By("answering the metric again: 30 asks for 3 replicas")
		f.SetExternalMetric(ctx, metric, "30")
		recovered := time.Now()
		f.WaitForHPA(ctx, hpaKind(), name, tolerantReaction(), "the metric back to Normal without a firstFailureTime", func(h *v2.HorizontalPodAutoscaler) bool {
			st := framework.ExternalMetricStatus(h, metric)
			return st != nil && st.FallbackStatus == v2.FallbackStatusNormal && st.FirstFailureTime == nil && st.Current.AverageValue != nil
		})
		f.WaitForCondition(ctx, hpaKind(), name, v2.ExternalMetricFallbackActive, corev1.ConditionFalse, "NoFallbackActive", reaction())
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackDeactivated", deactivatedMessage(metric), reaction())
		ginkgo.By("waiting for normal scaling: down from the fallback count to what the metric asks")
		f.WaitForReplicas(ctx, name, 3, tolerantReaction())
		f.WaitForEvent(ctx, name, "SuccessfulRescale", "New size: 3", reaction())

		ginkgo.By("failing again: the run of failures starts over")
		f.SetExternalMetricFault(ctx, metric, framework.FaultEmpty)
		h := f.WaitForHPA(ctx, hpaKind(), name, tolerantReaction(), "a new firstFailureTime", func(h *v2.HorizontalPodAutoscaler) bool {
			st := framework.ExternalMetricStatus(h, metric)
			return st != nil && st.FirstFailureTime != nil
		})
		st := framework.ExternalMetricStatus(h, metric)
		// Status times are whole seconds.
		gomega.Expect(st.FirstFailureTime.Time).To(gomega.BeTemporally(">=", recovered.Truncate(time.Second)),
			"the new run of failures began after the recovery, not with the previous run")
		gomega.Expect(st.FallbackStatus).To(gomega.Equal(v2.FallbackStatusNormal), "a new run of failures is not in fallback")
		restarted := st.FirstFailureTime.Time
		consistentlyUntil(ctx, time.Now().Add(suite.Config.SyncPeriod.Duration+time.Second), stillFailing(f, name, metric, restarted, 3))
	})

	ginkgo.It("should use the maximum of the healthy metrics' proposals and the fallback replica counts", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const name = "worker"
		healthy, failing := f.UniqueName("requests"), f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, healthy, "20")
		f.SetExternalMetricFault(ctx, failing, framework.FaultError)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 10, fallbackMetric(healthy, 0), fallbackMetric(failing, 4)))

		ginkgo.By("scaling up to 2 on the healthy metric while the other fails: a failing metric blocks only scale-downs")
		f.WaitForReplicas(ctx, name, 2, tolerantReaction())
		firstFailure := waitForFirstFailure(ctx, f, name, failing, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		consistentlyUntil(ctx, deadline, stillFailing(f, name, failing, firstFailure, 2))

		ginkgo.By("waiting for max(2 from the healthy metric, fallback 4)")
		waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		f.WaitForReplicas(ctx, name, 4, tolerantReaction())

		ginkgo.By("raising the healthy metric to ask for 6, above the fallback")
		f.SetExternalMetric(ctx, healthy, "60")
		f.WaitForReplicas(ctx, name, 6, tolerantReaction())

		ginkgo.By("lowering the healthy metric to ask for 1: the fallback, a valid metric, allows the scale-down and holds it at 4")
		f.SetExternalMetric(ctx, healthy, "10")
		f.WaitForReplicas(ctx, name, 4, tolerantReaction())
		h := f.WaitForHPA(ctx, hpaKind(), name, tolerantReaction(), "the healthy metric read at 4 replicas", func(h *v2.HorizontalPodAutoscaler) bool {
			st := framework.ExternalMetricStatus(h, healthy)
			// 10 over 4 replicas.
			return h.Status.CurrentReplicas == 4 && st != nil && quantityIs(st.Current.AverageValue, "2500m")
		})
		gomega.Expect(h.Status.DesiredReplicas).To(gomega.Equal(int32(4)))
		gomega.Expect(framework.ExternalMetricStatus(h, failing).FallbackStatus).To(gomega.Equal(v2.FallbackStatusFallback))
		consistentlyUntil(ctx, time.Now().Add(suite.Config.SyncPeriod.Duration+time.Second), scaleIs(f, name, 4))
	})

	ginkgo.It("should keep the fallback replica count within minReplicas and maxReplicas", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		above, below := "above-max", "below-min"
		aboveMetric, belowMetric := f.UniqueName("queue_depth_a"), f.UniqueName("queue_depth_b")
		f.CreateDeployment(ctx, above, 2)
		f.CreateDeployment(ctx, below, 5)
		// A hanging adapter is a failure once the controller's fetch times
		// out; a metric the adapter has never heard of ("not found") is one
		// too. No activationSlack below: at the deadline a pass may be
		// waiting for a hanging fetch.
		f.SetExternalMetricFault(ctx, aboveMetric, framework.FaultHang)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(above, 1, 3, fallbackMetric(aboveMetric, 6)))
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(below, 3, 10, fallbackMetric(belowMetric, 1)))

		aboveFailure := waitForFirstFailure(ctx, f, above, aboveMetric, tolerantReaction())
		belowFailure := waitForFirstFailure(ctx, f, below, belowMetric, tolerantReaction())
		aboveDeadline, belowDeadline := aboveFailure.Add(failureDuration), belowFailure.Add(failureDuration)
		first := aboveDeadline
		if belowDeadline.Before(first) {
			first = belowDeadline
		}
		consistentlyUntil(ctx, first, stillFailing(f, above, aboveMetric, aboveFailure, 2), stillFailing(f, below, belowMetric, belowFailure, 5))

		ginkgo.By("waiting for fallback 6 to be held at maxReplicas 3")
		waitForFallbackActive(ctx, f, above, aboveDeadline, tolerantReaction())
		f.WaitForReplicas(ctx, above, 3, tolerantReaction())
		f.WaitForCondition(ctx, hpaKind(), above, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooManyReplicas", reaction())

		ginkgo.By("waiting for fallback 1 to be held at minReplicas 3, scaling down from 5")
		waitForFallbackActive(ctx, f, below, belowDeadline, tolerantReaction())
		f.WaitForReplicas(ctx, below, 3, tolerantReaction())
		f.WaitForCondition(ctx, hpaKind(), below, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooFewReplicas", reaction())
		for _, name := range []string{above, below} {
			h, err := f.GetHPA(ctx, hpaKind(), name)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(h.Status.DesiredReplicas).To(gomega.Equal(int32(3)), "desiredReplicas of %s", name)
		}
		consistentlyUntil(ctx, time.Now().Add(2*suite.Config.SyncPeriod.Duration), scaleIs(f, above, 3), scaleIs(f, below, 3))
	})

	ginkgo.It("should report which external metrics are in fallback and their firstFailureTime in status", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const name = "worker"
		healthy, failing, plain := f.UniqueName("requests"), f.UniqueName("queue_depth"), f.UniqueName("latency")
		f.CreateDeployment(ctx, name, 2)
		f.SetExternalMetric(ctx, healthy, "20")
		f.SetExternalMetricFault(ctx, failing, framework.FaultError)
		f.SetExternalMetric(ctx, plain, "10")
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 10,
			fallbackMetric(healthy, 7), fallbackMetric(failing, 3), fallbackMetric(plain, 0)))

		firstFailure := waitForFirstFailure(ctx, f, name, failing, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		ginkgo.By("checking the status of each metric while one fails")
		f.WaitForHPA(ctx, hpaKind(), name, tolerantReaction(), "every metric reported", func(h *v2.HorizontalPodAutoscaler) bool {
			return reportsHealthy(h, healthy, true) && reportsHealthy(h, plain, false) && len(h.Status.CurrentMetrics) == 3
		})
		consistentlyUntil(ctx, deadline, stillFailing(f, name, failing, firstFailure, 2))

		ginkgo.By("waiting for the failing metric to be reported in fallback, with the same firstFailureTime")
		cond := waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		gomega.Expect(cond.Message).To(gomega.ContainSubstring(failing))
		gomega.Expect(cond.Message).NotTo(gomega.ContainSubstring(healthy))
		gomega.Expect(cond.Message).NotTo(gomega.ContainSubstring(plain))
		h := f.WaitForHPA(ctx, hpaKind(), name, tolerantReaction(), "one metric in fallback, two healthy", func(h *v2.HorizontalPodAutoscaler) bool {
			st := framework.ExternalMetricStatus(h, failing)
			return st != nil && st.FallbackStatus == v2.FallbackStatusFallback &&
				reportsHealthy(h, healthy, true) && reportsHealthy(h, plain, false)
		})
		st := framework.ExternalMetricStatus(h, failing)
		gomega.Expect(st.FirstFailureTime).NotTo(gomega.BeNil(), "firstFailureTime stays while in fallback")
		gomega.Expect(st.FirstFailureTime.Time).To(gomega.BeTemporally("==", firstFailure))
		gomega.Expect(st.Current.AverageValue).To(gomega.BeNil(), "a metric in fallback has no current value")
		// max(2 from healthy, fallback 3, 1 from plain)
		f.WaitForReplicas(ctx, name, 3, tolerantReaction())
	})

	ginkgo.It("should use the largest fallback replica count when several external metrics are in fallback", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const name = "worker"
		first, second := f.UniqueName("queue_depth"), f.UniqueName("backlog")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetricFault(ctx, first, framework.FaultError)
		f.SetExternalMetricFault(ctx, second, framework.FaultEmpty)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 10, fallbackMetric(first, 3), fallbackMetric(second, 5)))

		firstFailure := waitForFirstFailure(ctx, f, name, first, tolerantReaction())
		secondFailure := waitForFirstFailure(ctx, f, name, second, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		if d := secondFailure.Add(failureDuration); d.Before(deadline) {
			deadline = d
		}
		consistentlyUntil(ctx, deadline, stillFailing(f, name, first, firstFailure, 1), stillFailing(f, name, second, secondFailure, 1))

		ginkgo.By("waiting for both metrics in fallback and max(3, 5)")
		waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		h := f.WaitForHPA(ctx, hpaKind(), name, tolerantReaction(), "both metrics in fallback", func(h *v2.HorizontalPodAutoscaler) bool {
			a, b := framework.ExternalMetricStatus(h, first), framework.ExternalMetricStatus(h, second)
			return a != nil && b != nil && a.FallbackStatus == v2.FallbackStatusFallback && b.FallbackStatus == v2.FallbackStatusFallback
		})
		cond := framework.FindCondition(h, v2.ExternalMetricFallbackActive)
		gomega.Expect(cond.Message).To(gomega.And(gomega.ContainSubstring(first), gomega.ContainSubstring(second)))
		f.WaitForReplicas(ctx, name, 5, tolerantReaction())
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", activatedMessage(first, 3), reaction())
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", activatedMessage(second, 5), reaction())

		ginkgo.By("answering the metric with the larger fallback again, asking for 1: the other fallback, 3, is now the largest")
		f.SetExternalMetric(ctx, second, "10")
		f.WaitForReplicas(ctx, name, 3, tolerantReaction())
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackDeactivated", deactivatedMessage(second), reaction())
		h = f.WaitForHPA(ctx, hpaKind(), name, reaction(), "only the first metric in fallback", func(h *v2.HorizontalPodAutoscaler) bool {
			c := framework.FindCondition(h, v2.ExternalMetricFallbackActive)
			return conditionIsTrue(c) && reportsHealthy(h, second, true)
		})
		cond = framework.FindCondition(h, v2.ExternalMetricFallbackActive)
		gomega.Expect(cond.Message).To(gomega.ContainSubstring(first))
		gomega.Expect(cond.Message).NotTo(gomega.ContainSubstring(second))
	})
})

// reportsHealthy tells whether metric has a current value and no failure
// in status; withFallback says whether it has a fallback, and so a
// fallbackStatus (Normal) at all.
func reportsHealthy(h *v2.HorizontalPodAutoscaler, metric string, withFallback bool) bool {
	st := framework.ExternalMetricStatus(h, metric)
	if st == nil || st.Current.AverageValue == nil || st.FirstFailureTime != nil {
		return false
	}
	if withFallback {
		return st.FallbackStatus == v2.FallbackStatusNormal
	}
	return st.FallbackStatus == ""
}

// restartControllers restarts what runs the controller: every
// hpa-controller-manager replica, one at a time (CRD mode), or
// kube-controller-manager (in-tree mode). Each new process started after
// firstFailure, so it knows of the failure only from status.
func restartControllers(ctx context.Context, firstFailure time.Time) {
	ginkgo.GinkgoHelper()
	begin := time.Now()
	if kcm := suite.ControllerManager(); kcm != nil {
		ginkgo.By("restarting kube-controller-manager")
		status, err := kcm.Restart(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.AddReportEntry("restart of kube-controller-manager", time.Since(begin).Round(10*time.Millisecond).String())
		gomega.Expect(status.StartedAt).To(gomega.BeTemporally(">", firstFailure), "kube-controller-manager started after the first failure")
		ginkgo.By(fmt.Sprintf("kube-controller-manager runs as pid %d (start %d); it knows of the first failure only from status", status.PID, status.Starts))
		return
	}
	gomega.Expect(suite.Controllers).NotTo(gomega.BeNil(), "the environment has no controls of the controller")
	ginkgo.By("restarting every controller replica, one at a time")
	leader, err := suite.Controllers.RestartEachReplica(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.AddReportEntry("restart of every replica", time.Since(begin).Round(10*time.Millisecond).String())
	replicas, err := suite.Controllers.Control().Replicas(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	for _, r := range replicas {
		gomega.Expect(r.StartedAt).To(gomega.BeTemporally(">", firstFailure), "replica %s started after the first failure", r.Name)
	}
	ginkgo.By(fmt.Sprintf("replica %d leads; it knows of the first failure only from status", leader))
}

// restartQuiet is how long a restart of every controller replica may keep
// the HPAs from being reconciled: the handover, the new leader's caches
// and its first pass, one sync period after they sync.
const restartQuiet = 30 * time.Second

// fallbackDeadlinesWithin lists the fallbacks of other namespaces' HPAs
// that are due within [from, to]: metrics failing, not yet in fallback.
func fallbackDeadlinesWithin(ctx context.Context, f *framework.Framework, from, to time.Time) ([]string, error) {
	hpas, err := f.ListHPAs(ctx, hpaKind())
	if err != nil {
		return nil, err
	}
	var due []string
	for _, h := range hpas {
		if h.Namespace == f.Namespace {
			continue
		}
		for _, m := range h.Spec.Metrics {
			if m.External == nil || m.External.Fallback == nil || m.External.Fallback.FailureDurationSeconds == nil {
				continue
			}
			st := framework.ExternalMetricStatus(h, m.External.Metric.Name)
			if st == nil || st.FirstFailureTime == nil || st.FallbackStatus == v2.FallbackStatusFallback {
				continue
			}
			at := st.FirstFailureTime.Add(time.Duration(*m.External.Fallback.FailureDurationSeconds) * time.Second)
			if !at.Before(from) && !at.After(to) {
				due = append(due, fmt.Sprintf("%s/%s %s at %s", h.Namespace, h.Name, m.External.Metric.Name, at.Format(time.RFC3339)))
			}
		}
	}
	return due, nil
}

// The disruptive fallback specs: a restart of every controller replica
// and an outage of the metrics adapter, each in the middle of a run of
// failures. They are not Serial: the Serial phase comes after every
// parallel spec, and three more minutes of failures there would nearly
// double the suite. Instead they run beside the other fallback specs,
// which tolerate both (a restart costs an HPA a few seconds and its
// in-memory behavior history, which no fallback spec relies on;
// firstFailureTime is in status), and they act only while every running
// spec tolerates it (afterShortSpecs, WaitUntilOnlyTolerantSpecsRun).
var _ = sigDescribe([]string{featureHPA, featureFallback, disruptive}, "Horizontal pod autoscaling (external metric fallback, disruptive)", func() {
	f := newFramework("fallback-disruptive")

	ginkgo.It("should activate fallback at firstFailureTime + failureDurationSeconds across a restart of the controller", afterShortSpecs, func(ctx context.Context) {
		requireLocal()
		f.TolerateDisruptions(ctx)
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetricFault(ctx, metric, framework.FaultError)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 5, fallbackMetric(metric, 3)))
		firstFailure := waitForFirstFailure(ctx, f, name, metric, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)

		// The new leader must be up, synced and past its first pass well
		// before the deadline, and the restart must stay clear of the
		// deadlines of the specs beside, which started about when this one
		// did.
		restartBy := deadline.Add(-time.Minute)
		ginkgo.By("waiting until every running spec tolerates a restart of the controllers")
		f.WaitUntilOnlyTolerantSpecsRun(ctx, max(time.Until(restartBy), time.Second))
		// With fewer ginkgo processes than long specs, this one may start
		// while others are near their deadlines, which they check to within
		// activationSlack: a handover would make them late.
		ginkgo.By("waiting until no other fallback is due during the restart")
		gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
			return fallbackDeadlinesWithin(ctx, f, time.Now().Add(-activationSlack), time.Now().Add(restartQuiet))
		}).WithTimeout(max(time.Until(restartBy), time.Second)).WithPolling(time.Second).Should(gomega.BeEmpty())
		restartControllers(ctx, firstFailure)
		gomega.Expect(time.Now()).To(gomega.BeTemporally("<", deadline.Add(-30*time.Second)), "the restart ended too close to the deadline to tell anything")

		consistentlyUntil(ctx, deadline, stillFailing(f, name, metric, firstFailure, 1))
		ginkgo.By("waiting for the fallback at the deadline the first failure set, not one counted from the restart")
		cond := waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		expectActivationAtDeadline(cond, deadline)
		f.WaitForReplicas(ctx, name, 3, tolerantReaction())
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", activatedMessage(metric, 3), reaction())
	})

	ginkgo.It("should activate fallback while the metrics adapter is stopped", afterShortSpecs, func(ctx context.Context) {
		requireLocal()
		adapter := suite.Adapter()
		if adapter == nil {
			ginkgo.Skip("the environment has no control of the metrics adapter")
		}
		f.TolerateDisruptions(ctx)
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetricFault(ctx, metric, framework.FaultError)
		f.CreateHPA(ctx, hpaKind(), fallbackHPA(name, 1, 5, fallbackMetric(metric, 3)))
		firstFailure := waitForFirstFailure(ctx, f, name, metric, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)

		// Stopped this long before the deadline, the adapter is asked again
		// by the last passes before it (an answer is reused for up to
		// staleness), so the controller decides at the deadline on the
		// metrics API being unavailable. The outage is kept that short
		// because every spec beside loses its external metrics with it.
		stopAt := deadline.Add(-(staleness() + 2*suite.Config.SyncPeriod.Duration + 5*time.Second))
		ginkgo.By("waiting until every running spec tolerates an outage of the metrics adapter")
		f.WaitUntilOnlyTolerantSpecsRun(ctx, max(time.Until(stopAt), time.Second))
		consistentlyUntil(ctx, stopAt, stillFailing(f, name, metric, firstFailure, 1))
		gomega.Expect(time.Until(deadline)).To(gomega.BeNumerically(">", staleness()+suite.Config.SyncPeriod.Duration), "too close to the deadline to stop the adapter")

		ginkgo.By("stopping the metrics adapter")
		gomega.Expect(adapter.Stop(ctx)).To(gomega.Succeed())
		stopped := time.Now()
		ginkgo.DeferCleanup(func(ctx context.Context) error { return adapter.Start(ctx) })
		// The controller's own account of the failure, before the deadline:
		// the aggregator answers 503 for the adapter. (Events would not do:
		// the recorder drops repeats of a failure event after a burst.)
		f.WaitForHPA(ctx, hpaKind(), name, max(time.Until(deadline), time.Second), "the metrics API reported unavailable",
			func(h *v2.HorizontalPodAutoscaler) bool {
				c := framework.FindCondition(h, autoscalingv2.ScalingActive)
				return c != nil && c.Status == corev1.ConditionFalse && c.Reason == "FailedGetExternalMetric" &&
					strings.Contains(c.Message, "the server is currently unable to handle the request")
			})
		ginkgo.By("waiting for the fallback, with the adapter still stopped")
		waitForFallbackActive(ctx, f, name, deadline, reaction())
		f.WaitForScale(ctx, name, 3, reaction())
		running, err := adapter.Running(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(running).To(gomega.BeFalse(), "the adapter was stopped all along")
		h, err := f.GetHPA(ctx, hpaKind(), name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		st := framework.ExternalMetricStatus(h, metric)
		gomega.Expect(st.FallbackStatus).To(gomega.Equal(v2.FallbackStatusFallback))
		gomega.Expect(st.FirstFailureTime.Time).To(gomega.BeTemporally("==", firstFailure), "the outage continued the run of failures")

		ginkgo.By("starting the metrics adapter again")
		gomega.Expect(adapter.Start(ctx)).To(gomega.Succeed())
		ginkgo.AddReportEntry("metrics adapter outage", time.Since(stopped).Round(10*time.Millisecond).String())
		f.WaitForReplicas(ctx, name, 3, reaction())
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", activatedMessage(metric, 3), reaction())
	})
})
