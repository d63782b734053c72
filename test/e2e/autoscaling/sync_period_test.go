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
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// requireGate skips a spec on a cluster whose controller does not run
// with gate.
func requireGate(gate string) {
	if !suite.Config.FeatureGates[gate] {
		ginkgo.Skip(fmt.Sprintf("the controller does not run with %s=true", gate))
	}
}

// syncPeriodGauge is the controller's per-HPA period (KEP-6003).
const syncPeriodGauge = "horizontal_pod_autoscaler_controller_sync_period_seconds"

// withSyncPeriod sets spec.syncPeriodSeconds.
func withSyncPeriod(hpa *v2.HorizontalPodAutoscaler, seconds int32) *v2.HorizontalPodAutoscaler {
	hpa.Spec.SyncPeriodSeconds = ptr.To(seconds)
	return hpa
}

var _ = sigDescribe([]string{featureHPA, featureSyncPeriod, crdMode}, "Horizontal pod autoscaling (per-HPA sync period)", func() {
	f := newFramework("sync-period")

	// Three HPAs, each on an external metric of its own, so that the
	// adapter's count of a metric's fetches is how often its HPA was
	// reconciled: one every 3 seconds (KEP-6003's floor), one at the
	// controller's period, one every minute.
	ginkgo.It("should reconcile each HPA at its own syncPeriodSeconds, and at once after a change of its spec", func(ctx context.Context) {
		requireLocal()
		requireGate(string(features.HPAConfigurableSyncPeriod))
		const window = 24 * time.Second
		global := suite.Config.SyncPeriod.Duration
		periods := map[string]int32{"fast": 3, "default": 0, "slow": 60}
		metric := map[string]string{}
		for name, seconds := range periods {
			metric[name] = f.UniqueName(name)
			f.CreateDeployment(ctx, name, 1)
			if name == "slow" {
				continue // created last, below
			}
			f.SetExternalMetric(ctx, metric[name], "10")
			hpa := framework.ExternalHPA(name, name, metric[name], autoscalingv2.AverageValueMetricType, "10", 1, 5)
			if seconds > 0 {
				hpa = withSyncPeriod(hpa, seconds)
			}
			f.CreateHPA(ctx, framework.Extended, hpa)
		}

		ginkgo.By("reconciling a new HPA of 60s at once")
		// Spread, a new HPA is reconciled at once and then on its slot,
		// which may fall anywhere in its first period: its metric is named
		// so that the slot is at least 50s away, and what follows sees its
		// period.
		slowHPA := metricWithDistantSlot(f.Namespace, metric["slow"], 60*time.Second, 50*time.Second)
		metric["slow"] = slowHPA.Spec.Metrics[0].External.Metric.Name
		f.SetExternalMetric(ctx, metric["slow"], "10")
		f.CreateHPA(ctx, framework.Extended, slowHPA)
		f.WaitForHPA(ctx, framework.Extended, "slow", reaction(), "a first reconcile", func(h *v2.HorizontalPodAutoscaler) bool {
			return len(h.Status.CurrentMetrics) > 0
		})
		firstPass := time.Now()
		// The 60s HPA must not see this before its period, unless its
		// spec changes.
		f.SetExternalMetric(ctx, metric["slow"], "30")

		ginkgo.By("exposing each HPA's period in " + syncPeriodGauge)
		want := map[string]float64{"fast": 3, "default": global.Seconds(), "slow": 60}
		gomega.Eventually(ctx, func(g gomega.Gomega) {
			for name, seconds := range want {
				got, err := suite.Controllers.LeaderGauge(ctx, syncPeriodGauge, map[string]string{"namespace": f.Namespace, "hpa_name": name})
				g.Expect(err).NotTo(gomega.HaveOccurred())
				g.Expect(got).To(gomega.Equal(seconds), "period of %s", name)
			}
		}).WithTimeout(reaction()).WithPolling(time.Second).Should(gomega.Succeed())

		expectFetchPaces(ctx, f, metric, window, 0)

		ginkgo.By("leaving the HPA of 60s alone within its period")
		gomega.Expect(time.Since(firstPass)).To(gomega.BeNumerically("<", 45*time.Second), "the checks above took too long to tell")
		gomega.Expect(scaleOf(ctx, f, "slow")).To(gomega.Equal(int32(1)))

		ginkgo.By("reconciling it at once after a change of its spec")
		f.UpdateHPA(ctx, framework.Extended, "slow", func(h *v2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 6 })
		f.WaitForScale(ctx, "slow", 3, 15*time.Second)
		gomega.Expect(time.Since(firstPass)).To(gomega.BeNumerically("<", 60*time.Second),
			"the scale must come from the spec change, before the HPA's period")
	})
})

// expectFetchPaces counts, over window, the fetches of the metrics of the
// HPAs "fast" (3 s), "default" (the controller's period) and "slow" (60 s),
// and checks each pace; slowAllowance is how many fetches the 60 s HPA may
// make within the window.
func expectFetchPaces(ctx context.Context, f *framework.Framework, metric map[string]string, window time.Duration, slowAllowance uint64) {
	ginkgo.GinkgoHelper()
	global := suite.Config.SyncPeriod.Duration
	ginkgo.By(fmt.Sprintf("fetching each HPA's metric at its own pace for %v", window))
	before := fetchCounts(ctx, f, metric)
	gomega.Expect(sleepCtx(ctx, window)).To(gomega.Succeed())
	after := fetchCounts(ctx, f, metric)
	fast, def, slow := after["fast"]-before["fast"], after["default"]-before["default"], after["slow"]-before["slow"]
	ginkgo.GinkgoWriter.Printf("fetches in %v: fast (3s) %d, default (%v) %d, slow (60s) %d\n", window, fast, global, def, slow)
	// Nominally 8, 4 or 5 and 0; the bounds leave room for a loaded
	// machine without letting one pace pass for another.
	gomega.Expect(fast).To(gomega.BeNumerically(">=", 6), "fetches of the 3s HPA's metric")
	gomega.Expect(def).To(gomega.BeNumerically("<=", uint64(window/global)+1), "fetches of the default HPA's metric")
	gomega.Expect(fast).To(gomega.BeNumerically(">", def), "the 3s HPA reconciles more often than the default one")
	gomega.Expect(slow).To(gomega.BeNumerically("<=", slowAllowance), "fetches of the 60s HPA's metric within its period")
}

// fetchCounts reads the adapter's fetch count of each HPA's metric.
func fetchCounts(ctx context.Context, f *framework.Framework, metric map[string]string) map[string]uint64 {
	ginkgo.GinkgoHelper()
	out := map[string]uint64{}
	for name, m := range metric {
		n, err := f.ExternalFetches(ctx, m)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		out[name] = n
	}
	return out
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// metricWithDistantSlot returns the 60s HPA "slow" on a metric named after
// base whose spread slot (podautoscaler.SpreadOffset) is at least away from
// now: each name has a slot of its own, uniform over the period.
func metricWithDistantSlot(namespace, base string, period, away time.Duration) *v2.HorizontalPodAutoscaler {
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s-%d", base, i)
		hpa := withSyncPeriod(framework.ExternalHPA("slow", "slow", name, autoscalingv2.AverageValueMetricType, "10", 1, 5), 60)
		hpa.Namespace = namespace
		offset := podautoscaler.SpreadOffset(0, hpa, period)
		now := time.Now()
		into := (now.UnixNano() - int64(offset)) % int64(period)
		if into < 0 {
			into += int64(period)
		}
		if period-time.Duration(into) >= away {
			return hpa
		}
	}
}

// In-tree, the patched kube-controller-manager's queue requeues each HPA
// after its own syncPeriodSeconds (KEP-6003's per-item rate limiter), and
// the patched kube-apiserver serves the field in native autoscaling/v2.
var _ = sigDescribe([]string{featureHPA, featureSyncPeriod, inTreeMode}, "Horizontal pod autoscaling (per-HPA sync period, in-tree)", func() {
	f := newFramework("sync-period-intree")

	ginkgo.It("should reconcile a native HPA at its own syncPeriodSeconds", func(ctx context.Context) {
		requireLocal()
		if suite.Config.Mode != framework.ModeInTree {
			ginkgo.Skip("the in-tree mode's spec; CRD mode has its own")
		}
		requireGate(string(features.HPAConfigurableSyncPeriod))
		const window = 24 * time.Second
		periods := map[string]int32{"fast": 3, "default": 0, "slow": 60}
		metric := map[string]string{}
		for name, seconds := range periods {
			metric[name] = f.UniqueName(name)
			f.CreateDeployment(ctx, name, 1)
			f.SetExternalMetric(ctx, metric[name], "10")
			hpa := framework.ExternalHPA(name, name, metric[name], autoscalingv2.AverageValueMetricType, "10", 1, 5)
			if seconds > 0 {
				hpa = withSyncPeriod(hpa, seconds)
			}
			f.CreateHPA(ctx, framework.Native, hpa)
		}
		for name, seconds := range periods {
			h, err := f.GetHPA(ctx, framework.Native, name)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			if seconds > 0 {
				gomega.Expect(h.Spec.SyncPeriodSeconds).To(gomega.HaveValue(gomega.Equal(seconds)), "kube-apiserver keeps syncPeriodSeconds of %s", name)
			}
			if name == "slow" {
				// v1.36's queue takes a new HPA after its period (v1.37
				// reconciles it at once): the 60s HPA may not have
				// reconciled yet, and need not for what follows.
				continue
			}
			f.WaitForHPA(ctx, framework.Native, name, reaction(), "a first reconcile", func(h *v2.HorizontalPodAutoscaler) bool {
				return len(h.Status.CurrentMetrics) > 0
			})
		}

		// The 60s HPA may be reconciled once in the window: its first
		// pass (at once in v1.37, after its period in v1.36) is not waited
		// for.
		expectFetchPaces(ctx, f, metric, window, 1)
	})
})
