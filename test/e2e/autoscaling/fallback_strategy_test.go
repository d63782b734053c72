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

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// requireFallbackStrategy skips a spec on a cluster whose controller does
// not run with the strategy gate: the spec would see Static.
func requireFallbackStrategy() {
	if !suite.Config.FeatureGates[string(features.HPAExternalMetricFallbackStrategy)] {
		ginkgo.Skip(fmt.Sprintf("the controller does not run with %s=true", features.HPAExternalMetricFallbackStrategy))
	}
}

var _ = sigDescribe([]string{featureHPA, featureFallback, featureFallbackStrategy, crdMode}, "Horizontal pod autoscaling (external metric fallback strategy)", func() {
	f := newFramework("fallback-strategy")

	// Long like every KEP-5679 spec (180 s of failures), so they run among
	// them, after the short specs, and tolerate the disruptive ones.
	ginkgo.It("should keep a current replica count above the fallback replica count with the UseMax strategy", afterShortSpecs, func(ctx context.Context) {
		// No scale-down stabilization: a Static fallback would take the
		// Deployment down to 2 at once, which this spec must not see.
		expectFallbackHoldsCurrentCount(ctx, f, v2.FallbackStrategyUseMax, 4, 2)
	})

	ginkgo.It("should keep a current replica count below the fallback replica count with the UseMin strategy", afterShortSpecs, func(ctx context.Context) {
		// A Static fallback would take the Deployment up to 3.
		expectFallbackHoldsCurrentCount(ctx, f, v2.FallbackStrategyUseMin, 1, 3)
	})

	ginkgo.It("should propose the fallback replica count whatever the current count with the Static strategy, beside a healthy metric", afterShortSpecs, func(ctx context.Context) {
		f.TolerateDisruptions(ctx)
		const name = "worker"
		const fallbackReplicas = 2
		healthy, failing := f.UniqueName("requests"), f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, healthy, "50")
		f.SetExternalMetricFault(ctx, failing, framework.FaultError)
		m := fallbackMetric(failing, fallbackReplicas)
		m.External.Fallback.Strategy = v2.FallbackStrategyStatic
		f.CreateHPA(ctx, framework.Extended, fallbackHPA(name, 1, 10, fallbackMetric(healthy, 0), m))

		ginkgo.By("scaling up to 5 on the healthy metric while the other fails")
		f.WaitForReplicas(ctx, name, 5, tolerantReaction())
		firstFailure := waitForFirstFailure(ctx, f, name, failing, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)
		consistentlyUntil(ctx, deadline, stillFailing(f, name, failing, firstFailure, 5))

		ginkgo.By("activating the fallback with KEP-5679's own messages: max(5, fallback 2) keeps 5")
		cond := waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		expectActivationAtDeadline(cond, deadline)
		gomega.Expect(cond.Message).To(gomega.Equal("external metrics using their fallback replica count: " + failing))
		f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", activatedMessage(failing, fallbackReplicas), reaction())
		consistentlyUntil(ctx, time.Now().Add(suite.Config.SyncPeriod.Duration+time.Second), scaleIs(f, name, 5))

		ginkgo.By("lowering the healthy metric to ask for 1: Static proposes 2 whatever the current count, where UseMax would hold 5")
		f.SetExternalMetric(ctx, healthy, "10")
		f.WaitForReplicas(ctx, name, fallbackReplicas, tolerantReaction())
		consistentlyUntil(ctx, time.Now().Add(suite.Config.SyncPeriod.Duration+time.Second), scaleIs(f, name, fallbackReplicas))
		h, err := f.GetHPA(ctx, framework.Extended, name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(framework.ExternalMetricStatus(h, failing).FallbackStatus).To(gomega.Equal(v2.FallbackStatusFallback))
	})
})

// expectFallbackHoldsCurrentCount runs one External metric into its
// fallback under strategy, from a Deployment at current replicas whose
// fallback replica count is on the side the strategy refuses (below for
// UseMax, above for UseMin): the fallback proposes the current count, says
// so in its condition and event, and the Deployment stays.
func expectFallbackHoldsCurrentCount(ctx context.Context, f *framework.Framework, strategy v2.FallbackStrategy, current, fallbackReplicas int32) {
	ginkgo.GinkgoHelper()
	requireFallbackStrategy()
	f.TolerateDisruptions(ctx)
	const name = "worker"
	metric := f.UniqueName("queue_depth")
	f.CreateDeployment(ctx, name, current)
	f.SetExternalMetricFault(ctx, metric, framework.FaultError)
	m := fallbackMetric(metric, fallbackReplicas)
	m.External.Fallback.Strategy = strategy
	f.CreateHPA(ctx, framework.Extended, fallbackHPA(name, 1, 6, m))

	firstFailure := waitForFirstFailure(ctx, f, name, metric, tolerantReaction())
	deadline := firstFailure.Add(failureDuration)
	ginkgo.By("checking that nothing scales before failureDurationSeconds of failures")
	consistentlyUntil(ctx, deadline, stillFailing(f, name, metric, firstFailure, current))

	ginkgo.By(fmt.Sprintf("waiting for the fallback to activate with %s named, proposing the current %d replicas", strategy, current))
	cond := waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
	expectActivationAtDeadline(cond, deadline)
	gomega.Expect(cond.Message).To(gomega.Equal(fmt.Sprintf(
		"external metrics using their fallback replica count: %s (strategy %s, proposing %d replicas)", metric, strategy, current)))
	f.WaitForEvent(ctx, name, "ExternalMetricFallbackActivated", fmt.Sprintf(
		"Fallback activated for external metric '%s' after %v of consecutive failures, using fallback strategy %s: proposing %d replicas (fallback replica count %d, current replicas %d)",
		metric, failureDuration, strategy, current, fallbackReplicas, current), reaction())

	ginkgo.By(fmt.Sprintf("checking that the outage does not take the Deployment to the fallback replica count %d", fallbackReplicas))
	f.EnsureScaleStays(ctx, name, current, 3*suite.Config.SyncPeriod.Duration)
	h, err := f.GetHPA(ctx, framework.Extended, name)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(framework.ExternalMetricStatus(h, metric).FallbackStatus).To(gomega.Equal(v2.FallbackStatusFallback))
	gomega.Expect(h.Status.DesiredReplicas).To(gomega.Equal(current))
}
