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
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// The specs of Resource and ContainerResource metrics, which every
// environment serves from a real metrics-server scraping kwok's emulated
// kubelets (localcluster.Options.MetricsServer). A Deployment's load
// (framework.Load) is spread over its running pods, as a Service spreads
// requests: the HPA documentation's php-apache walkthrough. In in-tree mode
// the controller is upstream's own (kube-controller-manager v1.37.2 with
// the series, gate-off paths unchanged), so each spec holds for upstream's
// behaviour as well as kube-hpa's.

// Loads stay clear of the boundaries of the replica formula: a CPU reading
// is a rate over two scrapes and may come out a few percent high, so 150%
// of a target on one pod would ask for 3 pods or for 4. Each load below asks
// for a count with a margin, and lands within the tolerance once there.

// resourceReaction is how long a spec waits for a change of load to move
// an HPA: a CPU rate takes two scrapes of metrics-server before it shows,
// then the controller's reaction.
func resourceReaction() time.Duration { return reaction() + 3*localcluster.MetricsResolution }

// scaleDownWindow is the specs' scale-down stabilization window: long
// enough to tell a scale-down held by it from one that was not.
const scaleDownWindow = 30 * time.Second

// twoContainers adds a sidecar requesting as much CPU as the pause
// container, so that a pod's usage and one container's differ.
func twoContainers(spec *corev1.PodSpec) {
	sidecar := spec.Containers[0]
	sidecar.Name = "sidecar"
	spec.Containers = append(spec.Containers, sidecar)
}

// noRequests removes the containers' requests: utilization has no base.
func noRequests(spec *corev1.PodSpec) {
	for i := range spec.Containers {
		spec.Containers[i].Resources = corev1.ResourceRequirements{}
	}
}

// withMemoryRequest gives every container a memory request of 64Mi.
func withMemoryRequest(spec *corev1.PodSpec) {
	for i := range spec.Containers {
		spec.Containers[i].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("64Mi")
	}
}

var _ = sigDescribe([]string{featureHPA}, "Horizontal pod autoscaling (resource metrics through metrics-server)", func() {
	f := newFramework("resource")

	ginkgo.DescribeTable("should scale up on CPU utilization as load rises, and down after the stabilization window as it falls",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "php-apache"
			f.CreateDeployment(ctx, name, 1) // 100m of CPU requested a pod
			f.CreateHPA(ctx, kind, framework.ScaleDownWindow(framework.MultiMetricHPA(name, name, 1, 10,
				framework.ResourceUtilization(corev1.ResourceCPU, 50)), int32(scaleDownWindow/time.Second)))

			ginkgo.By("230m of load on one pod is 230% of its request: 5 pods bring it to 46%, within the tolerance")
			f.SetLoad(ctx, name, framework.Load{CPU: "230m"})
			f.WaitForReplicas(ctx, name, 5, resourceReaction())
			h := f.WaitForHPA(ctx, kind, name, resourceReaction(), "46% over 5 pods", func(h *v2.HorizontalPodAutoscaler) bool {
				st := resourceStatus(h, corev1.ResourceCPU)
				return h.Status.CurrentReplicas == 5 && st != nil && st.Current.AverageUtilization != nil &&
					*st.Current.AverageUtilization >= 41 && *st.Current.AverageUtilization <= 51
			})
			gomega.Expect(h.Status.DesiredReplicas).To(gomega.Equal(int32(5)))

			// Not 50m: 10% a pod over 5 pods is exactly one pod's worth,
			// so a reading a hair above it (kwok's counters, the scrape
			// window) asks for 2, and a window full of such readings
			// holds 2 for good.
			ginkgo.By("the load falls to 20m: one pod is enough, after the stabilization window")
			f.SetLoad(ctx, name, framework.Load{CPU: "20m"})
			f.EnsureScaleStays(ctx, name, 5, scaleDownWindow/2)
			f.WaitForReplicas(ctx, name, 1, resourceReaction()+scaleDownWindow)
		},
		eachKind(),
	)

	ginkgo.DescribeTable("should scale on memory as an average value",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "cache"
			f.CreateDeploymentWith(ctx, name, 1, withMemoryRequest)
			f.SetLoad(ctx, name, framework.Load{Memory: "256Mi"})
			f.CreateHPA(ctx, kind, framework.MultiMetricHPA(name, name, 1, 8,
				framework.ResourceAverageValue(corev1.ResourceMemory, "64Mi")))
			f.WaitForReplicas(ctx, name, 4, resourceReaction())
			f.WaitForHPA(ctx, kind, name, resourceReaction(), "64Mi a pod over 4 pods", func(h *v2.HorizontalPodAutoscaler) bool {
				st := resourceStatus(h, corev1.ResourceMemory)
				return h.Status.CurrentReplicas == 4 && st != nil && quantityIs(st.Current.AverageValue, "64Mi")
			})
		},
		eachKind(),
	)

	ginkgo.DescribeTable("should scale on the CPU of one container of two with a ContainerResource metric",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "sidecar"
			f.CreateDeploymentWith(ctx, name, 1, twoContainers)
			f.CreateHPA(ctx, kind, framework.MultiMetricHPA(name, name, 1, 8,
				framework.ContainerUtilization("pause", corev1.ResourceCPU, 50)))

			ginkgo.By("a busy sidecar does not count: the watched container idles")
			f.SetLoad(ctx, name, framework.Load{CPU: "400m", Container: "sidecar"})
			f.WaitForCondition(ctx, kind, name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", resourceReaction())
			f.EnsureScaleStays(ctx, name, 1, resourceReaction()/2)

			ginkgo.By("the watched container at 280% of its request asks for 6 pods")
			f.SetLoad(ctx, name, framework.Load{CPU: "280m", Container: "pause"})
			f.WaitForReplicas(ctx, name, 6, resourceReaction())
		},
		eachKind(),
	)

	ginkgo.DescribeTable("should leave an unready pod's CPU out of a scale-up, counting it at zero as upstream does",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "warming"
			f.CreateDeployment(ctx, name, 3)
			pods := f.RunningPods(ctx, name)
			gomega.Expect(pods).To(gomega.HaveLen(3))
			f.SetPodCPU(ctx, pods[0].Name, "90m")
			f.SetPodCPU(ctx, pods[1].Name, "90m")
			// Within --horizontal-pod-autoscaler-cpu-initialization-period
			// (5m) of its start, a pod that is not Ready is unready for CPU.
			f.SetPodCPU(ctx, pods[2].Name, "300m")
			f.SetPodUnready(ctx, pods[2].Name)
			f.CreateHPA(ctx, kind, cpuHPA(name, name, 10))

			ginkgo.By("the ready pods at 90% ask to scale up; the unready one counted at 0% brings 60% over 3 pods: 4")
			// Counted at its reading, (90+90+300)/3 = 160% would ask for 10.
			// The scale, not the Deployment's ready count: the pod made
			// unready stays so (kwok readies only pending pods).
			f.WaitForScale(ctx, name, 4, resourceReaction())
			f.EnsureScaleStays(ctx, name, 4, cpuSettled())
		},
		eachKind(),
	)

	ginkgo.DescribeTable("should tell a long-running pod's readiness by the initial readiness delay: never ready is left out, unready later is counted",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "veteran"
			f.CreateDeployment(ctx, name, 3)
			pods := f.RunningPods(ctx, name)
			gomega.Expect(pods).To(gomega.HaveLen(3))
			for _, p := range pods {
				f.SetPodCPU(ctx, p.Name, "90m")
			}
			// Both started ten minutes ago, past the CPU initialization
			// period (5m): their Ready condition alone decides, by when it
			// last changed against --horizontal-pod-autoscaler-initial-readiness-delay (30s).
			started := time.Now().Add(-10 * time.Minute)
			f.SetPodHistory(ctx, pods[1].Name, framework.PodHistory{Started: started, ReadySince: started.Add(10 * time.Second)})
			f.SetPodHistory(ctx, pods[2].Name, framework.PodHistory{Started: started, ReadySince: time.Now().Add(-time.Minute)})
			f.WaitForPodCPU(ctx, name, "90m", 3, resourceReaction())
			f.CreateHPA(ctx, kind, cpuHPA(name, name, 10))

			// The never-ready pod counted at 0: (90+90+0)/3 = 60% asks for
			// 4. Counted at its reading it would be 6; the pod unready
			// later left out too, 30% would hold 3.
			ginkgo.By("the pod never ready within the delay is left out, the one unready later counts: 4")
			f.WaitForScale(ctx, name, 4, resourceReaction())
			f.EnsureScaleStays(ctx, name, 4, cpuSettled())
		},
		eachKind(),
	)

	ginkgo.DescribeTable("should count a pod without metrics at zero on a scale-up, so that 60% over 2 pods and 1 unmeasured holds",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			requireLocal()
			const name = "unmeasured-up"
			withUnmeasuredPod(ctx, f, name, 2, "60m")
			f.CreateHPA(ctx, kind, cpuHPA(name, name, 10))

			// Left out, the two measured pods at 120% of the target would
			// ask for 3; counted at 0, (60+60+0)/3 = 40% turns the
			// proposal into a scale-down, which a scale-up does not take.
			f.WaitForHPA(ctx, kind, name, resourceReaction(), "60% read from the measured pods", func(h *v2.HorizontalPodAutoscaler) bool {
				st := resourceStatus(h, corev1.ResourceCPU)
				return st != nil && st.Current.AverageUtilization != nil && *st.Current.AverageUtilization >= 54
			})
			f.EnsureScaleStays(ctx, name, 2, cpuSettled())
		},
		eachKind(),
	)

	ginkgo.DescribeTable("should count a pod without metrics at its full request on a scale-down, so that 4 pods at 10% ask for 3, not 1",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			requireLocal()
			const name = "unmeasured-down"
			withUnmeasuredPod(ctx, f, name, 4, "10m")
			f.CreateHPA(ctx, kind, framework.NoScaleDownStabilization(framework.MultiMetricHPA(name, name, 1, 10,
				framework.ResourceUtilization(corev1.ResourceCPU, 50))))

			// (4x10 + 100)/5 = 28% of the target's 50 over 5 pods: 3. Left
			// out, 10% over 4 pods would be 1; then (3x10 + 100)/4 holds 3.
			f.WaitForScale(ctx, name, 3, resourceReaction())
			f.EnsureScaleStays(ctx, name, 3, cpuSettled())
		},
		eachKind(),
	)

	ginkgo.DescribeTable("should report FailedGetResourceMetric and not scale when the pods request no CPU",
		func(ctx context.Context, kind framework.HPAKind) {
			requireKind(kind)
			const name = "unrequested"
			f.CreateDeploymentWith(ctx, name, 2, noRequests)
			f.SetLoad(ctx, name, framework.Load{CPU: "400m"})
			f.CreateHPA(ctx, kind, framework.MultiMetricHPA(name, name, 1, 8, framework.ResourceUtilization(corev1.ResourceCPU, 50)))
			// Before metrics-server's first two scrapes the condition says
			// that no metrics came back; then it names the missing request,
			// in upstream's words.
			f.WaitForHPA(ctx, kind, name, resourceReaction(), "ScalingActive=False for the missing request", func(h *v2.HorizontalPodAutoscaler) bool {
				c := framework.FindCondition(h, autoscalingv2.ScalingActive)
				return c != nil && c.Status == corev1.ConditionFalse && c.Reason == "FailedGetResourceMetric" &&
					strings.Contains(c.Message, "missing request for cpu")
			})
			f.WaitForEvent(ctx, name, "FailedGetResourceMetric", "missing request for cpu", resourceReaction())
			f.EnsureScaleStays(ctx, name, 2, 2*suite.Config.SyncPeriod.Duration)
		},
		eachKind(),
	)

	ginkgo.It("should take the larger of a CPU proposal and a failing External metric's fallback", afterShortSpecs, func(ctx context.Context) {
		requireGate("HPAExternalMetricFallback")
		f.TolerateDisruptions(ctx)
		const name = "mixed"
		failing := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetLoad(ctx, name, framework.Load{CPU: "140m"})
		f.SetExternalMetricFault(ctx, failing, framework.FaultError)
		f.CreateHPA(ctx, hpaKind(), framework.NoScaleDownStabilization(framework.MultiMetricHPA(name, name, 1, 10,
			framework.ResourceUtilization(corev1.ResourceCPU, 50), fallbackMetric(failing, 5))))

		ginkgo.By("3 pods on CPU while the External metric fails")
		f.WaitForReplicas(ctx, name, 3, resourceReaction())
		firstFailure := waitForFirstFailure(ctx, f, name, failing, tolerantReaction())
		deadline := firstFailure.Add(failureDuration)

		ginkgo.By("after failureDurationSeconds: max(3 from CPU, fallback 5)")
		waitForFallbackActive(ctx, f, name, deadline, tolerantReaction())
		f.WaitForReplicas(ctx, name, 5, tolerantReaction())

		ginkgo.By("CPU asking for 8, above the fallback, wins")
		f.SetLoad(ctx, name, framework.Load{CPU: "380m"})
		f.WaitForReplicas(ctx, name, 8, resourceReaction()+disruptionAllowance)
	})
})

var _ = sigDescribe([]string{featureHPA, serial, disruptive}, "Horizontal pod autoscaling (metrics-server down)", func() {
	f := newFramework("metrics-server")

	ginkgo.It("should set ScalingActive=False and hold the scale while metrics-server is down, and scale again once it is back", func(ctx context.Context) {
		requireLocal()
		if local == nil {
			ginkgo.Skip("the environment's metrics-server is run by ginkgo's first process")
		}
		const name = "php-apache"
		f.CreateDeployment(ctx, name, 1)
		f.SetLoad(ctx, name, framework.Load{CPU: "90m"})
		f.CreateHPA(ctx, hpaKind(), framework.NoScaleDownStabilization(framework.MultiMetricHPA(name, name, 1, 10,
			framework.ResourceUtilization(corev1.ResourceCPU, 50))))
		f.WaitForReplicas(ctx, name, 2, resourceReaction())
		f.WaitForCondition(ctx, hpaKind(), name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", resourceReaction())

		ginkgo.By("killing metrics-server")
		gomega.Expect(local.Cluster().KillMetricsServer()).To(gomega.Succeed())
		restarted := false
		ginkgo.DeferCleanup(func(ctx context.Context) {
			if !restarted {
				_, err := local.Cluster().RestartMetricsServer(ctx)
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
			}
		})
		f.SetLoad(ctx, name, framework.Load{CPU: "380m"})
		f.WaitForCondition(ctx, hpaKind(), name, autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric", resourceReaction())
		f.EnsureScaleStays(ctx, name, 2, 2*suite.Config.SyncPeriod.Duration)

		ginkgo.By("starting metrics-server again: the load asks for 8")
		_, err := local.Cluster().RestartMetricsServer(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		restarted = true
		f.WaitForReplicas(ctx, name, 8, resourceReaction())
		f.WaitForCondition(ctx, hpaKind(), name, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", resourceReaction())
	})
})

// withUnmeasuredPod creates Deployment name with replicas pods using cpu
// each, and beside them a running pod of its selector that metrics-server
// never reports, and waits until metrics-server reports the others.
func withUnmeasuredPod(ctx context.Context, f *framework.Framework, name string, replicas int32, cpu string) {
	ginkgo.GinkgoHelper()
	f.CreateDeployment(ctx, name, replicas)
	for _, p := range f.RunningPods(ctx, name) {
		f.SetPodCPU(ctx, p.Name, cpu)
	}
	f.CreatePodWithoutMetrics(ctx, name)
	f.WaitForPodCPU(ctx, name, cpu, int(replicas), resourceReaction())
}

// cpuHPA is an HPA of 1 to maxReplicas replicas of Deployment target on
// CPU at 50% of requests, the walkthrough's: it needs the resource metrics
// API.
func cpuHPA(name, target string, maxReplicas int32) *v2.HorizontalPodAutoscaler {
	return framework.MultiMetricHPA(name, target, 1, maxReplicas, framework.ResourceUtilization(corev1.ResourceCPU, 50))
}

// cpuSettled is how long a spec watches a CPU HPA hold its count: two
// passes after a new reading of metrics-server.
func cpuSettled() time.Duration {
	return 2*suite.Config.SyncPeriod.Duration + localcluster.MetricsResolution
}

// eachKind are the entries of a table run on HPAs of either kind (each
// spec's requireKind skips the extended kind in in-tree mode).
func eachKind() []ginkgo.TableEntry {
	return []ginkgo.TableEntry{ginkgo.Entry("of the extended kind", framework.Extended), ginkgo.Entry("of the native kind", framework.Native)}
}

// resourceStatus is the status of the Resource metric name, or nil.
func resourceStatus(h *v2.HorizontalPodAutoscaler, name corev1.ResourceName) *autoscalingv2.ResourceMetricStatus {
	for _, m := range h.Status.CurrentMetrics {
		if m.Resource != nil && m.Resource.Name == name {
			return m.Resource
		}
	}
	return nil
}
