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
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// The objects every probe works with.
const (
	rbacTarget = "target"
	rbacHPA    = "probe"
)

// rbacProbe says how the absence of one verb of one rule shows.
type rbacProbe struct {
	// access is the request the verb allows; the spec waits for the
	// authorizer to deny it before looking for the symptom.
	access authorizationv1.ResourceAttributes
	// restart is set for verbs used when informers start (list, watch):
	// a running informer keeps its watch, so the leader is restarted after
	// the verb is removed, and restored restarts it again.
	restart bool
	// forbidden, when set, is what a replica's log must show after broken
	// (a Forbidden error naming the verb), and must no longer show once
	// the verb is back.
	forbidden string
	// setup runs before the verb is removed.
	setup func(context.Context, *rbacCase)
	// broken observes the symptom; restored observes its end.
	broken, restored func(context.Context, *rbacCase)
}

// rbacProbes are keyed by verbKey.
func rbacProbes() map[string]rbacProbe {
	return map[string]rbacProbe{
		"autoscaling.kube-hpa.io horizontalpodautoscalers list":          informerListProbe(framework.Extended, v2.GroupName, "horizontalpodautoscalers"),
		"autoscaling.kube-hpa.io horizontalpodautoscalers watch":         informerWatchProbe(framework.Extended, deploymentTarget, v2.GroupName, "horizontalpodautoscalers"),
		"autoscaling.kube-hpa.io horizontalpodautoscalers/status update": statusProbe(framework.Extended, v2.GroupName),
		"autoscaling horizontalpodautoscalers list":                      informerListProbe(framework.Native, "autoscaling", "horizontalpodautoscalers"),
		"autoscaling horizontalpodautoscalers watch":                     informerWatchProbe(framework.Native, deploymentTarget, "autoscaling", "horizontalpodautoscalers"),
		"autoscaling horizontalpodautoscalers/status update":             statusProbe(framework.Native, "autoscaling"),
		"core pods list":  informerListProbe(framework.Extended, "", "pods"),
		"core pods watch": informerWatchProbe(framework.Extended, deploymentTarget, "", "pods"),
		"* */scale get":   scaleGetProbe(),
		"apps deployments,replicasets,statefulsets list":  scaleInformerListProbe(deploymentTarget, "apps", "deployments"),
		"apps deployments,replicasets,statefulsets watch": informerWatchProbe(framework.Extended, deploymentTarget, "apps", "deployments"),
		"core replicationcontrollers list":                scaleInformerListProbe(replicationControllerTarget, "", "replicationcontrollers"),
		"core replicationcontrollers watch":               informerWatchProbe(framework.Extended, replicationControllerTarget, "", "replicationcontrollers"),
		"* */scale update":                                scaleUpdateProbe(),
		"core events create":                              eventCreateProbe(),
		"core events patch":                               eventPatchProbe(),
		"metrics.k8s.io pods list":                        resourceMetricsProbe(),
		"custom.metrics.k8s.io * get":                     customMetricsProbe(),
		"external.metrics.k8s.io * list":                  externalMetricsProbe(),
		"coordination.k8s.io leases get":                  leaseGetProbe(),
		"coordination.k8s.io leases create":               leaseCreateProbe(),
		"coordination.k8s.io leases update":               leaseUpdateProbe(),
	}
}

// informerListProbe shows what list is for. The informers fill their
// caches with a watch that streams the existing objects first (watch-list:
// the WatchListClient gate of client-go and the WatchList gate of
// kube-apiserver, both on by default since 1.34), so on this cluster they
// never list, and without list the new leader syncs and scales (the audit
// log shows watches with sendInitialEvents=true and no list). list is their
// fallback where watch-list is not served (the API server's gate off, as by
// default in 1.33, or the client's): the case then runs a replica with the
// client's gate off, which cannot sync its caches without list.
func informerListProbe(kind framework.HPAKind, group, resource string) rbacProbe {
	return listFallbackProbe(kind, deploymentTarget, group, resource,
		func(ctx context.Context, rc *rbacCase, own *ownReplica) {
			rc.f.SetExternalMetric(ctx, rc.f.UniqueName(rbacHPA), "30")
			gomega.Consistently(ctx, own.ready).WithTimeout(suite.Config.SyncPeriod.Duration+2*time.Second).
				WithPolling(500*time.Millisecond).Should(gomega.BeFalse(), "the leader without watch-list to stay not ready (caches not synced)")
			rc.f.EnsureScaleStays(ctx, rbacTarget, 2, time.Second)
		},
		func(ctx context.Context, rc *rbacCase, _ *ownReplica) {
			rc.f.WaitForReplicas(ctx, rbacTarget, 3, reaction())
		})
}

// listFallbackProbe is the case of list on an informer's resource: the
// HPA scales without list while watch-list is served, then a replica
// without watch-list takes the lead and must log the refusal; without
// shows the rest of the symptom, with what follows once list is back and
// that replica has got ready.
func listFallbackProbe(kind framework.HPAKind, target probeTarget, group, resource string, without, with func(context.Context, *rbacCase, *ownReplica)) rbacProbe {
	forbidden := cannot("list", resource, group)
	var own *ownReplica
	return rbacProbe{
		access:  authorizationv1.ResourceAttributes{Verb: "list", Group: group, Resource: resource},
		restart: true,
		// The HPA is created before list goes: the webhook lists both
		// kinds to refuse a second autoscaler on the target, and refuses
		// what it cannot check (the migration docs).
		setup: func(ctx context.Context, rc *rbacCase) {
			target.create(ctx, rc)
			rc.targetProbeHPA(ctx, kind, target, rbacHPA, 2)
		},
		broken: func(ctx context.Context, rc *rbacCase) {
			target.waitScale(ctx, rc, 2)
			rc.expectNoForbiddenInLogs(forbidden)

			ginkgo.By("running the controller without watch-list")
			own = rc.startOwnReplica(ctx, "KUBE_FEATURE_WatchListClient=false")
			own.waitLeading(ctx)
			gomega.Eventually(ctx, func() bool { return forbiddenIn(own.log(), forbidden) }).
				WithTimeout(reaction()).WithPolling(500*time.Millisecond).Should(gomega.BeTrue(),
				"the replica without watch-list to log a Forbidden error naming %s", forbidden)
			without(ctx, rc, own)
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			// The informer lists again after its back-off, which grows to
			// 30 s (and up to twice that with jitter) while list is refused.
			gomega.Eventually(ctx, own.ready).WithTimeout(reaction()+time.Minute).WithPolling(500*time.Millisecond).
				Should(gomega.BeTrue(), "the leader without watch-list to get ready once list is back")
			with(ctx, rc, own)
		},
	}
}

// informerWatchProbe: without watch, the new leader's informer fills its
// cache by a list, and then every watch it opens is refused: it lists
// everything again after a back-off that grows to 30 s, so that changes
// reach the controller late, at the cost of a full list each time.
func informerWatchProbe(kind framework.HPAKind, target probeTarget, group, resource string) rbacProbe {
	return rbacProbe{
		access:    authorizationv1.ResourceAttributes{Verb: "watch", Group: group, Resource: resource},
		restart:   true,
		forbidden: cannot("watch", resource, group),
		setup:     target.create,
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.targetProbeHPA(ctx, kind, target, rbacHPA, 2)
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.restartLeader(ctx, true)
			target.waitScale(ctx, rc, 2)
		},
	}
}

// statusProbe: without update on the status subresource, the controller
// scales nothing (it scales only after writing status) and says why in
// an event.
func statusProbe(kind framework.HPAKind, group string) rbacProbe {
	return rbacProbe{
		access: authorizationv1.ResourceAttributes{Verb: "update", Group: group, Resource: "horizontalpodautoscalers", Subresource: "status"},
		setup:  createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.externalProbeHPA(ctx, kind, rbacHPA, 1)
			rc.f.WaitForEvent(ctx, rbacHPA, "FailedUpdateStatus", cannot("update", "horizontalpodautoscalers/status", group), reaction())
			rc.expectNoStatus(ctx, kind, rbacHPA)
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.f.WaitForCondition(ctx, kind, rbacHPA, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
		},
	}
}

func scaleGetProbe() rbacProbe {
	forbidden := cannot("get", "scalables/scale", framework.ScalableGroup)
	return rbacProbe{
		access: authorizationv1.ResourceAttributes{Verb: "get", Group: framework.ScalableGroup, Resource: "scalables", Subresource: "scale"},
		setup: func(ctx context.Context, rc *rbacCase) {
			rc.f.EnsureScalableCRD(ctx)
			rc.f.CreateScalable(ctx, rbacTarget, 1)
		},
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.scalableProbeHPA(ctx, rbacHPA, 2)
			rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "AbleToScale=False FailedGetScale, forbidden",
				conditionMentions(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", forbidden))
			rc.f.WaitForEvent(ctx, rbacHPA, "FailedGetScale", forbidden, reaction())
			rc.f.EnsureScalableStays(ctx, rbacTarget, 1, time.Second)
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.f.WaitForScalableReplicas(ctx, rbacTarget, 2, reaction())
		},
	}
}

// scalableProbeHPA is externalProbeHPA on the scalable custom resource
// rbacTarget, whose scale the controller reads by GET: Deployments' it
// reads from its watches.
func (rc *rbacCase) scalableProbeHPA(ctx context.Context, name string, replicas int) {
	ginkgo.GinkgoHelper()
	metric := rc.f.UniqueName(name)
	rc.f.SetExternalMetric(ctx, metric, fmt.Sprint(10*replicas))
	hpa := framework.ExternalHPA(name, rbacTarget, metric, autoscalingv2.AverageValueMetricType, "10", 1, 5)
	hpa.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{
		APIVersion: framework.ScalableGroup + "/" + framework.ScalableVersion, Kind: framework.ScalableKind, Name: rbacTarget,
	}
	rc.f.CreateHPA(ctx, framework.Extended, framework.NoScaleDownStabilization(hpa))
}

// scaleInformerListProbe: list is the scale watches' fallback where
// watch-list is not served, as for the HPA informers (informerListProbe).
// Without it, a replica without watch-list never syncs its scale cache:
// it logs the refusal and stays not ready, and meanwhile reads every scale
// by GET, so it still scales.
func scaleInformerListProbe(target probeTarget, group, resource string) rbacProbe {
	return listFallbackProbe(framework.Extended, target, group, resource,
		func(ctx context.Context, rc *rbacCase, own *ownReplica) {
			rc.f.SetExternalMetric(ctx, rc.f.UniqueName(rbacHPA), "30")
			target.waitScale(ctx, rc, 3)
			gomega.Expect(own.ready(ctx)).To(gomega.BeFalse(), "the leader without watch-list to be not ready (scale cache not synced)")
		},
		func(context.Context, *rbacCase, *ownReplica) {})
}

// scaleUpdateProbe: the controller reads the scale and computes a new
// size, but cannot write it.
func scaleUpdateProbe() rbacProbe {
	return rbacProbe{
		access: authorizationv1.ResourceAttributes{Verb: "update", Group: "apps", Resource: "deployments", Subresource: "scale"},
		setup:  createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			forbidden := cannot("update", "deployments/scale", "apps")
			rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
			rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "AbleToScale=False FailedUpdateScale, forbidden",
				conditionMentions(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", forbidden))
			rc.f.WaitForEvent(ctx, rbacHPA, "FailedRescale", forbidden, reaction())
			rc.f.EnsureScaleStays(ctx, rbacTarget, 1, suite.Config.SyncPeriod.Duration)
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
		},
	}
}

// eventCreateProbe: the controller scales and says so in status, but no
// event about the HPA appears.
func eventCreateProbe() rbacProbe {
	return rbacProbe{
		access:    authorizationv1.ResourceAttributes{Verb: "create", Resource: "events"},
		forbidden: cannot("create", "events", ""),
		setup:     createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
			rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			rc.f.WaitForCondition(ctx, framework.Extended, rbacHPA, autoscalingv2.AbleToScale, corev1.ConditionTrue, "", reaction())
			rc.waitForbiddenInLogs(ctx, cannot("create", "events", ""))
			gomega.Consistently(ctx, func(ctx context.Context) []string {
				var reasons []string
				for _, e := range rc.f.Events(ctx, rbacHPA) {
					reasons = append(reasons, e.Reason)
				}
				return reasons
			}).WithTimeout(2*time.Second).Should(gomega.BeEmpty(), "events about the HPA")
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.f.SetExternalMetric(ctx, rc.f.UniqueName(rbacHPA), "30")
			rc.f.WaitForEvent(ctx, rbacHPA, "SuccessfulRescale", "New size: 3", reaction())
		},
	}
}

// eventPatchProbe: an event that repeats is counted by patching the
// first one; without patch, its count stops.
func eventPatchProbe() rbacProbe {
	// Each pass over an HPA whose target does not exist repeats one event
	// (FailedGetScale, same message), once per sync period: well within
	// the recorder's spam filter (25 events per object, then one per 5
	// minutes) for the length of the case.
	count := func(ctx context.Context, rc *rbacCase) int32 {
		var n int32
		for _, e := range rc.f.Events(ctx, rbacHPA) {
			if e.Reason == "FailedGetScale" {
				n = max(n, e.Count)
			}
		}
		return n
	}
	var before int32
	return rbacProbe{
		access:    authorizationv1.ResourceAttributes{Verb: "patch", Resource: "events"},
		forbidden: cannot("patch", "events", ""),
		setup: func(ctx context.Context, rc *rbacCase) {
			rc.f.CreateHPA(ctx, framework.Extended, framework.ExternalHPA(rbacHPA, "missing", rc.f.UniqueName(rbacHPA),
				autoscalingv2.AverageValueMetricType, "10", 1, 5))
			gomega.Eventually(ctx, func(ctx context.Context) int32 { return count(ctx, rc) }).
				WithTimeout(reaction()).WithPolling(500*time.Millisecond).Should(gomega.BeNumerically(">=", 2),
				"the FailedGetScale event to be counted twice (patched once)")
		},
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.waitForbiddenInLogs(ctx, cannot("patch", "events", ""))
			before = count(ctx, rc)
			gomega.Consistently(ctx, func(ctx context.Context) int32 { return count(ctx, rc) }).
				WithTimeout(2*suite.Config.SyncPeriod.Duration+2*time.Second).WithPolling(500*time.Millisecond).Should(gomega.Equal(before),
				"the count of the repeated FailedGetScale event while patch is refused")
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			gomega.Eventually(ctx, func(ctx context.Context) int32 { return count(ctx, rc) }).
				WithTimeout(reaction()).WithPolling(500*time.Millisecond).Should(gomega.BeNumerically(">", before),
				"the count of the repeated FailedGetScale event once patch is back")
		},
	}
}

func resourceMetricsProbe() rbacProbe {
	return rbacProbe{
		access: authorizationv1.ResourceAttributes{Verb: "list", Group: "metrics.k8s.io", Resource: "pods"},
		setup:  createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.f.CreateHPA(ctx, framework.Extended, cpuHPA(rbacHPA, rbacTarget, 5))
			rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetResourceMetric, forbidden",
				conditionMentions(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric", cannot("list", "pods", "metrics.k8s.io")))
		},
		// The local cluster serves no resource metrics API: with the verb,
		// the request gets as far as "not found", which is what the
		// controller reports; without it, the API server refuses it first.
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetResourceMetric, not forbidden",
				func(h *v2.HorizontalPodAutoscaler) bool {
					c := framework.FindCondition(h, autoscalingv2.ScalingActive)
					return c != nil && c.Reason == "FailedGetResourceMetric" && !strings.Contains(c.Message, "forbidden")
				})
		},
	}
}

// customMetricsProbe: every request of the custom metrics client names an
// object (or "*" for the pods of a selector), which the API server
// authorizes as get; no request of the controller is a list.
func customMetricsProbe() rbacProbe {
	return rbacProbe{
		access: authorizationv1.ResourceAttributes{Verb: "get", Group: "custom.metrics.k8s.io", Resource: "deployments.apps"},
		setup:  createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.f.SetObjectMetric(ctx, "Deployment", rbacTarget, "rbac_probe", "20")
			rc.f.CreateHPA(ctx, framework.Extended, objectHPA(rbacHPA, rbacTarget, "rbac_probe"))
			rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetObjectMetric, forbidden",
				conditionMentions(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetObjectMetric",
					`cannot get resource "deployments.apps/rbac_probe"`, `API group "custom.metrics.k8s.io"`))
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
		},
	}
}

func externalMetricsProbe() rbacProbe {
	return rbacProbe{
		access: authorizationv1.ResourceAttributes{Verb: "list", Group: "external.metrics.k8s.io", Resource: "probe"},
		setup:  createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
			rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetExternalMetric, forbidden",
				conditionMentions(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetExternalMetric",
					"cannot list resource", `API group "external.metrics.k8s.io"`))
		},
		restored: func(ctx context.Context, rc *rbacCase) {
			rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
		},
	}
}

func leaseAccess(verb string) authorizationv1.ResourceAttributes {
	return authorizationv1.ResourceAttributes{Verb: verb, Group: "coordination.k8s.io", Resource: "leases", Namespace: suite.Config.ControllerNamespace}
}

// leaseGetProbe: the leader renews by updating the Lease it holds, without
// reading it, so it keeps leading; but an election needs get: once the
// leader stops (gracefully, releasing the Lease), no replica can read the
// Lease to take it.
func leaseGetProbe() rbacProbe {
	return rbacProbe{
		access:    leaseAccess("get"),
		forbidden: cannot("get", "leases", "coordination.k8s.io"),
		setup:     createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			old, pid, err := rc.c.KillLeader(ctx, "TERM")
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			_, err = rc.c.Control().WaitRunning(ctx, old, pid)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			rc.expectNoLeader(ctx)
		},
		restored: expectLeaderScales,
	}
}

// leaseCreateProbe: the Lease exists while a replica runs, so create is
// needed when it does not: deleted (by a person, a namespace re-created,
// a first install). Without create the leader cannot renew a deleted
// Lease, gives up after its renew deadline and exits, and no replica can
// lead again.
func leaseCreateProbe() rbacProbe {
	return rbacProbe{
		access:    leaseAccess("create"),
		forbidden: cannot("create", "leases", "coordination.k8s.io"),
		setup:     createTarget,
		broken: func(ctx context.Context, rc *rbacCase) {
			err := suite.Kube.CoordinationV1().Leases(suite.Config.ControllerNamespace).Delete(ctx, suite.Config.LeaseName, metav1.DeleteOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "deleting the Lease")
			rc.expectNoLeader(ctx)
		},
		restored: expectLeaderScales,
	}
}

// leaseUpdateProbe: the leader cannot renew; it gives up after its renew
// deadline and exits, and no replica can take the Lease.
func leaseUpdateProbe() rbacProbe {
	return rbacProbe{
		access:    leaseAccess("update"),
		forbidden: cannot("update", "leases", "coordination.k8s.io"),
		setup:     createTarget,
		broken:    func(ctx context.Context, rc *rbacCase) { rc.expectNoLeader(ctx) },
		restored:  expectLeaderScales,
	}
}

// expectNoLeader waits until no replica leads (within a lease duration),
// checks that none does for a sync period more, and that an HPA created
// meanwhile is not reconciled.
func (rc *rbacCase) expectNoLeader(ctx context.Context) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, rc.c.Leaders).WithTimeout(suite.Config.LeaseDuration.Duration+takeoverSlack()).
		WithPolling(500*time.Millisecond).Should(gomega.BeEmpty(), "no replica leading")
	rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
	gomega.Consistently(ctx, rc.c.Leaders).WithTimeout(suite.Config.SyncPeriod.Duration).Should(gomega.BeEmpty())
	rc.expectNoStatus(ctx, framework.Extended, rbacHPA)
}

func expectLeaderScales(ctx context.Context, rc *rbacCase) {
	ginkgo.GinkgoHelper()
	leader, err := rc.c.WaitForLeader(ctx, -1)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(rc.c.WaitReady(ctx, leader)).To(gomega.Succeed())
	rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
}

// externalProbeHPA is an HPA on an External metric that asks for replicas
// replicas of the Deployment rbacTarget.
func (rc *rbacCase) externalProbeHPA(ctx context.Context, kind framework.HPAKind, name string, replicas int) {
	ginkgo.GinkgoHelper()
	rc.targetProbeHPA(ctx, kind, deploymentTarget, name, replicas)
}

// targetProbeHPA is externalProbeHPA on any kind of target.
func (rc *rbacCase) targetProbeHPA(ctx context.Context, kind framework.HPAKind, target probeTarget, name string, replicas int) {
	ginkgo.GinkgoHelper()
	metric := rc.f.UniqueName(name)
	rc.f.SetExternalMetric(ctx, metric, fmt.Sprint(10*replicas))
	hpa := framework.ExternalHPA(name, rbacTarget, metric, autoscalingv2.AverageValueMetricType, "10", 1, 5)
	hpa.Spec.ScaleTargetRef = target.ref
	rc.f.CreateHPA(ctx, kind, framework.NoScaleDownStabilization(hpa))
}

// probeTarget is the workload named rbacTarget that a probe's HPA scales.
// The controller watches a workload kind only while some HPA targets it,
// so the probes of a kind's list and watch scale an object of that kind.
type probeTarget struct {
	ref       autoscalingv2.CrossVersionObjectReference
	create    func(context.Context, *rbacCase)
	waitScale func(ctx context.Context, rc *rbacCase, replicas int32)
}

var deploymentTarget = probeTarget{
	ref:    autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: rbacTarget},
	create: createTarget,
	waitScale: func(ctx context.Context, rc *rbacCase, replicas int32) {
		ginkgo.GinkgoHelper()
		rc.f.WaitForReplicas(ctx, rbacTarget, replicas, reaction())
	},
}

// replicationControllerTarget is waited on by its scale alone: its pods
// are not what the probes look at.
var replicationControllerTarget = probeTarget{
	ref: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "ReplicationController", Name: rbacTarget},
	create: func(ctx context.Context, rc *rbacCase) {
		ginkgo.GinkgoHelper()
		rc.f.CreateReplicationController(ctx, rbacTarget, 1)
	},
	waitScale: func(ctx context.Context, rc *rbacCase, replicas int32) {
		ginkgo.GinkgoHelper()
		rc.f.WaitForReplicationControllerScale(ctx, rbacTarget, replicas, reaction())
	},
}

// conditionMentions matches a condition whose message contains every part.
func conditionMentions(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason string, parts ...string) func(*v2.HorizontalPodAutoscaler) bool {
	return func(h *v2.HorizontalPodAutoscaler) bool {
		c := framework.FindCondition(h, t)
		if c == nil || c.Status != status || c.Reason != reason {
			return false
		}
		for _, p := range parts {
			if !strings.Contains(c.Message, p) {
				return false
			}
		}
		return true
	}
}

func createTarget(ctx context.Context, rc *rbacCase) {
	ginkgo.GinkgoHelper()
	rc.f.CreateDeployment(ctx, rbacTarget, 1)
}

// objectHPA scales on a custom metric of the target Deployment itself:
// Value 10, so a metric of 20 asks for twice the current replicas.
func objectHPA(name, target, metric string) *v2.HorizontalPodAutoscaler {
	hpa := framework.ExternalHPA(name, target, "unused", autoscalingv2.ValueMetricType, "1", 1, 2)
	hpa.Spec.Metrics = []v2.MetricSpec{{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &v2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
			Metric:          v2.MetricIdentifier{Name: metric},
			Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr.To(resource.MustParse("10"))},
		},
	}}
	return framework.NoScaleDownStabilization(hpa)
}
