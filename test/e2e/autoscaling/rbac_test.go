package autoscaling

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// deployRBAC is what deploy/rbac.yaml grants the controller.
type deployRBAC struct {
	serviceAccount        string // namespace/name
	clusterRole, roleName string
	roleNamespace         string
	clusterRules          []rbacv1.PolicyRule
	roleRules             []rbacv1.PolicyRule
}

func readDeployRBAC() (*deployRBAC, error) {
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		return nil, err
	}
	objs, err := framework.ReadManifests(filepath.Join(root, "deploy", "rbac.yaml"))
	if err != nil {
		return nil, err
	}
	out := &deployRBAC{}
	sa, err := framework.FindManifest(objs, "ServiceAccount")
	if err != nil {
		return nil, err
	}
	out.serviceAccount = sa.GetNamespace() + "/" + sa.GetName()
	cr, err := framework.FindManifest(objs, "ClusterRole")
	if err != nil {
		return nil, err
	}
	var clusterRole rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cr.Object, &clusterRole); err != nil {
		return nil, err
	}
	out.clusterRole, out.clusterRules = clusterRole.Name, clusterRole.Rules
	r, err := framework.FindManifest(objs, "Role")
	if err != nil {
		return nil, err
	}
	var role rbacv1.Role
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r.Object, &role); err != nil {
		return nil, err
	}
	out.roleName, out.roleNamespace, out.roleRules = role.Name, role.Namespace, role.Rules
	return out, nil
}

// ruleKey names a rule by its groups and resources; deploy/rbac.yaml has
// one rule per key, and rbacProbes is keyed the same way.
func ruleKey(r rbacv1.PolicyRule) string {
	groups := slices.Clone(r.APIGroups)
	for i, g := range groups {
		if g == "" {
			groups[i] = "core"
		}
	}
	return strings.Join(groups, ",") + " " + strings.Join(r.Resources, ",")
}

var _ = sigDescribe([]string{featureHPA, serial, disruptive}, "hpa-controller-manager RBAC (deploy/rbac.yaml)", func() {
	f := newFramework("rbac")

	rbac, err := readDeployRBAC()
	if err != nil {
		ginkgo.It("should read deploy/rbac.yaml", func() { gomega.Expect(err).NotTo(gomega.HaveOccurred()) })
		return
	}
	var entries []ginkgo.TableEntry
	for i, r := range rbac.clusterRules {
		entries = append(entries, ginkgo.Entry(fmt.Sprintf("ClusterRole rule %d: %s %v", i, ruleKey(r), r.Verbs), false, i))
	}
	for i, r := range rbac.roleRules {
		entries = append(entries, ginkgo.Entry(fmt.Sprintf("Role rule %d: %s %v", i, ruleKey(r), r.Verbs), true, i))
	}

	// Each rule is taken out of the live role alone, the symptom its
	// absence must cause is observed within a bounded time, and the rule
	// is put back, after which the symptom must go away: that the rule
	// was the cause, not a slow controller.
	ginkgo.DescribeTable("should break the controller without each rule, and recover with it",
		func(ctx context.Context, inRole bool, index int) {
			requireLocal()
			rules := rbac.clusterRules
			if inRole {
				rules = rbac.roleRules
			}
			rule := rules[index]
			probe, ok := rbacProbes()[ruleKey(rule)]
			if !ok {
				ginkgo.Fail(fmt.Sprintf("no symptom is known for the rule %s: add one to rbacProbes, or drop the rule from deploy/rbac.yaml if nothing needs it", ruleKey(rule)))
			}
			rc := &rbacCase{f: f, c: suite.Controllers, rbac: rbac}
			gomega.Expect(rc.c.WaitAllRunning(ctx)).To(gomega.Succeed())
			if probe.setup != nil {
				probe.setup(ctx, rc)
			}
			rc.markLogs()

			ginkgo.By("removing the rule " + ruleKey(rule))
			restore := rc.removeRule(ctx, inRole, index)
			recovered := false
			ginkgo.DeferCleanup(func(ctx context.Context) {
				restore(ctx)
				// After a failure half-way, a leader whose informers could
				// not list would retry on its own only after a back-off:
				// restart it so that the next spec finds the controller well.
				if probe.restart && !recovered {
					rc.restartLeader(ctx, true)
				}
			})
			rc.waitAccess(ctx, probe.access, false)
			if probe.restart {
				rc.restartLeader(ctx, false)
			}
			removed := time.Now()
			probe.broken(ctx, rc)
			ginkgo.AddReportEntry("symptom after removal", time.Since(removed).Round(10*time.Millisecond).String())

			ginkgo.By("putting the rule back")
			restore(ctx)
			rc.waitAccess(ctx, probe.access, true)
			if probe.restart {
				rc.restartLeader(ctx, true)
			}
			recovered = true
			restored := time.Now()
			probe.restored(ctx, rc)
			ginkgo.AddReportEntry("recovery after restore", time.Since(restored).Round(10*time.Millisecond).String())
		},
		entries,
	)
})

// rbacCase is the state of one rule's spec.
type rbacCase struct {
	f    *framework.Framework
	c    *framework.Controllers
	rbac *deployRBAC
	// logOffsets are the sizes of the replicas' logs before the rule was
	// removed; evidence is looked for after them.
	logOffsets []int64
}

func (rc *rbacCase) markLogs() {
	rc.logOffsets = make([]int64, rc.c.Count())
	for i := range rc.logOffsets {
		if st, err := os.Stat(rc.c.LogPath(i)); err == nil {
			rc.logOffsets[i] = st.Size()
		}
	}
}

// logsSince returns what the replicas logged since markLogs.
func (rc *rbacCase) logsSince() string {
	var b strings.Builder
	for i, off := range rc.logOffsets {
		data, err := os.ReadFile(rc.c.LogPath(i))
		if err == nil && int64(len(data)) > off {
			b.Write(data[off:])
		}
	}
	return b.String()
}

// waitForbiddenInLogs waits until a replica logs a Forbidden error that
// contains what, which names the API group and resource.
func (rc *rbacCase) waitForbiddenInLogs(ctx context.Context, what string) {
	ginkgo.GinkgoHelper()
	// klog quotes the error, escaping its own quotes.
	escaped := strings.ReplaceAll(what, `"`, `\"`)
	gomega.Eventually(ctx, func() bool {
		for _, line := range strings.Split(rc.logsSince(), "\n") {
			if strings.Contains(line, "forbidden") && (strings.Contains(line, what) || strings.Contains(line, escaped)) {
				return true
			}
		}
		return false
	}).WithTimeout(reaction()).WithPolling(500*time.Millisecond).Should(gomega.BeTrue(),
		"a controller replica to log a Forbidden error naming %s", what)
}

// removeRule updates the live role without rule index and returns what
// puts the original back (idempotent).
func (rc *rbacCase) removeRule(ctx context.Context, inRole bool, index int) func(context.Context) {
	ginkgo.GinkgoHelper()
	rbacClient := suite.Kube.RbacV1()
	update := func(ctx context.Context, rules []rbacv1.PolicyRule) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if inRole {
				role, err := rbacClient.Roles(rc.rbac.roleNamespace).Get(ctx, rc.rbac.roleName, metav1.GetOptions{})
				if err != nil {
					return err
				}
				role.Rules = rules
				_, err = rbacClient.Roles(role.Namespace).Update(ctx, role, metav1.UpdateOptions{})
				return err
			}
			cr, err := rbacClient.ClusterRoles().Get(ctx, rc.rbac.clusterRole, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cr.Rules = rules
			_, err = rbacClient.ClusterRoles().Update(ctx, cr, metav1.UpdateOptions{})
			return err
		})
	}
	original := rc.rbac.clusterRules
	if inRole {
		original = rc.rbac.roleRules
	}
	gomega.Expect(update(ctx, slices.Delete(slices.Clone(original), index, index+1))).To(gomega.Succeed())
	restored := false
	return func(ctx context.Context) {
		if restored {
			return
		}
		restored = true
		gomega.Expect(update(ctx, original)).To(gomega.Succeed(), "restoring the rule")
	}
}

// waitAccess waits until the authorizer answers allowed for the
// controller's ServiceAccount and attrs: RBAC changes reach the
// authorizer through an informer, so a spec must not race them.
func (rc *rbacCase) waitAccess(ctx context.Context, attrs authorizationv1.ResourceAttributes, allowed bool) {
	ginkgo.GinkgoHelper()
	ns, name, _ := strings.Cut(rc.rbac.serviceAccount, "/")
	if attrs.Namespace == "" && attrs.Resource != "" && !clusterScoped(attrs) {
		attrs.Namespace = rc.f.Namespace
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               fmt.Sprintf("system:serviceaccount:%s:%s", ns, name),
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
		ResourceAttributes: &attrs,
	}}
	gomega.Eventually(ctx, func(ctx context.Context) (bool, error) {
		out, err := suite.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return out.Status.Allowed, nil
	}).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).Should(gomega.Equal(allowed),
		"the authorizer to answer allowed=%t for %s %s/%s", allowed, attrs.Verb, attrs.Group, attrs.Resource)
}

func clusterScoped(attrs authorizationv1.ResourceAttributes) bool {
	return attrs.Namespace == "" && attrs.Group == "coordination.k8s.io"
}

// restartLeader ends the leader gracefully, so that the new leader starts
// its informers (list and watch) under the current permissions. With
// ready, it waits for the new leader's caches to sync.
func (rc *rbacCase) restartLeader(ctx context.Context, ready bool) int {
	ginkgo.GinkgoHelper()
	leader, err := rc.c.RestartLeader(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	if ready {
		gomega.Expect(rc.c.WaitReady(ctx, leader)).To(gomega.Succeed())
	}
	return leader
}

// expectStalled checks the symptom of a list/watch rule: the leader's
// informers cannot list, so its caches never sync, /readyz keeps failing
// and the HPA gets no status, for a sync period and more.
func (rc *rbacCase) expectStalled(ctx context.Context, kind framework.HPAKind, name string) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(ctx, func(ctx context.Context) error {
		leaders := rc.c.Leaders(ctx)
		if len(leaders) != 1 {
			return fmt.Errorf("want one leader, have %v", leaders)
		}
		if rc.c.Ready(ctx, leaders[0]) {
			return fmt.Errorf("the leader, replica %d, is ready", leaders[0])
		}
		return rc.noStatus(ctx, kind, name)
	}).WithTimeout(suite.Config.SyncPeriod.Duration+2*time.Second).WithPolling(500*time.Millisecond).Should(gomega.Succeed(),
		"the leader to stay not ready (caches not synced) and the %s HPA %s without status", kind, name)
}

// expectNoStatus checks that an HPA is never reconciled for a sync period
// and more.
func (rc *rbacCase) expectNoStatus(ctx context.Context, kind framework.HPAKind, name string) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(ctx, func(ctx context.Context) error { return rc.noStatus(ctx, kind, name) }).
		WithTimeout(suite.Config.SyncPeriod.Duration + 2*time.Second).WithPolling(500 * time.Millisecond).Should(gomega.Succeed())
}

func (rc *rbacCase) noStatus(ctx context.Context, kind framework.HPAKind, name string) error {
	hpa, err := rc.f.GetHPA(ctx, kind, name)
	if err != nil {
		return err
	}
	if len(hpa.Status.Conditions) > 0 {
		return fmt.Errorf("the %s HPA %s has a status: %v", kind, name, hpa.Status.Conditions)
	}
	return nil
}

// The objects every probe works with.
const (
	rbacTarget = "target"
	rbacHPA    = "probe"
)

// externalProbeHPA is an HPA on an External metric that asks for replicas
// replicas of rbacTarget.
func (rc *rbacCase) externalProbeHPA(ctx context.Context, kind framework.HPAKind, name string, replicas int) {
	ginkgo.GinkgoHelper()
	metric := rc.f.UniqueName(name)
	rc.f.SetExternalMetric(ctx, metric, fmt.Sprint(10*replicas))
	rc.f.CreateHPA(ctx, kind, framework.NoScaleDownStabilization(
		framework.ExternalHPA(name, rbacTarget, metric, autoscalingv2.AverageValueMetricType, "10", 1, 5)))
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

// rbacProbe says how the absence of one rule shows.
type rbacProbe struct {
	// access is a request the rule allows; the spec waits for the
	// authorizer to deny it before looking for the symptom.
	access authorizationv1.ResourceAttributes
	// restart is set for rules used when informers start (list, watch):
	// a running informer keeps its watch, so the leader is restarted.
	restart bool
	// setup runs before the rule is removed.
	setup func(context.Context, *rbacCase)
	// broken observes the symptom; restored observes its end.
	broken, restored func(context.Context, *rbacCase)
}

// rbacProbes are keyed by ruleKey.
func rbacProbes() map[string]rbacProbe {
	return map[string]rbacProbe{
		"autoscaling.kube-hpa.io horizontalpodautoscalers": {
			access:  authorizationv1.ResourceAttributes{Verb: "list", Group: v2.GroupName, Resource: "horizontalpodautoscalers"},
			restart: true,
			setup:   createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
				rc.waitForbiddenInLogs(ctx, `resource "horizontalpodautoscalers" in API group "autoscaling.kube-hpa.io"`)
				rc.expectStalled(ctx, framework.Extended, rbacHPA)
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			},
		},
		"autoscaling.kube-hpa.io horizontalpodautoscalers/status": {
			access: authorizationv1.ResourceAttributes{Verb: "update", Group: v2.GroupName, Resource: "horizontalpodautoscalers", Subresource: "status"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 1)
				rc.f.WaitForEvent(ctx, rbacHPA, "FailedUpdateStatus", "forbidden", reaction())
				rc.expectNoStatus(ctx, framework.Extended, rbacHPA)
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForCondition(ctx, framework.Extended, rbacHPA, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
			},
		},
		"autoscaling horizontalpodautoscalers": {
			access:  authorizationv1.ResourceAttributes{Verb: "list", Group: "autoscaling", Resource: "horizontalpodautoscalers"},
			restart: true,
			setup:   createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Native, rbacHPA, 2)
				rc.waitForbiddenInLogs(ctx, `resource "horizontalpodautoscalers" in API group "autoscaling"`)
				rc.expectStalled(ctx, framework.Native, rbacHPA)
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			},
		},
		"autoscaling horizontalpodautoscalers/status": {
			access: authorizationv1.ResourceAttributes{Verb: "update", Group: "autoscaling", Resource: "horizontalpodautoscalers", Subresource: "status"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Native, rbacHPA, 1)
				rc.f.WaitForEvent(ctx, rbacHPA, "FailedUpdateStatus", "forbidden", reaction())
				rc.expectNoStatus(ctx, framework.Native, rbacHPA)
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForCondition(ctx, framework.Native, rbacHPA, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", reaction())
			},
		},
		"* */scale": {
			access: authorizationv1.ResourceAttributes{Verb: "get", Group: "apps", Resource: "deployments", Subresource: "scale"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
				rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "AbleToScale=False FailedGetScale, forbidden",
					conditionMentions(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", "forbidden", `"deployments/scale"`))
				rc.f.WaitForEvent(ctx, rbacHPA, "FailedGetScale", "forbidden", reaction())
				rc.f.EnsureScaleStays(ctx, rbacTarget, 1, time.Second)
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			},
		},
		"core pods": {
			access:  authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods"},
			restart: true,
			setup:   createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
				rc.waitForbiddenInLogs(ctx, `resource "pods" in API group ""`)
				rc.expectStalled(ctx, framework.Extended, rbacHPA)
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			},
		},
		"core events": {
			access: authorizationv1.ResourceAttributes{Verb: "create", Resource: "events"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
				// The controller scales and says so in status, but its event
				// is refused.
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
				rc.f.WaitForCondition(ctx, framework.Extended, rbacHPA, autoscalingv2.AbleToScale, corev1.ConditionTrue, "", reaction())
				rc.waitForbiddenInLogs(ctx, `resource "events" in API group ""`)
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
		},
		"metrics.k8s.io pods": {
			access: authorizationv1.ResourceAttributes{Verb: "list", Group: "metrics.k8s.io", Resource: "pods"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.f.CreateHPA(ctx, framework.Extended, cpuHPA(rbacHPA, rbacTarget))
				rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetResourceMetric, forbidden",
					conditionMentions(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric", "forbidden", `API group "metrics.k8s.io"`))
			},
			// The local cluster serves no resource metrics API: with the rule,
			// the request gets as far as "not found", which is what the
			// controller reports; without it, the API server refuses it first.
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetResourceMetric, not forbidden",
					func(h *v2.HorizontalPodAutoscaler) bool {
						c := framework.FindCondition(h, autoscalingv2.ScalingActive)
						return c != nil && c.Reason == "FailedGetResourceMetric" && !strings.Contains(c.Message, "forbidden")
					})
			},
		},
		"custom.metrics.k8s.io *": {
			access: authorizationv1.ResourceAttributes{Verb: "get", Group: "custom.metrics.k8s.io", Resource: "deployments.apps"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.f.SetObjectMetric(ctx, "Deployment", rbacTarget, "rbac_probe", "20")
				rc.f.CreateHPA(ctx, framework.Extended, objectHPA(rbacHPA, rbacTarget, "rbac_probe"))
				rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetObjectMetric, forbidden",
					conditionMentions(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetObjectMetric", "forbidden", `API group "custom.metrics.k8s.io"`))
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			},
		},
		"external.metrics.k8s.io *": {
			access: authorizationv1.ResourceAttributes{Verb: "list", Group: "external.metrics.k8s.io", Resource: "probe"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
				rc.f.WaitForHPA(ctx, framework.Extended, rbacHPA, reaction(), "ScalingActive=False FailedGetExternalMetric, forbidden",
					conditionMentions(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetExternalMetric", "forbidden", `API group "external.metrics.k8s.io"`))
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			},
		},
		"coordination.k8s.io leases": {
			access: authorizationv1.ResourceAttributes{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-hpa-system"},
			setup:  createTarget,
			broken: func(ctx context.Context, rc *rbacCase) {
				// The leader cannot renew: it gives up after its renew deadline
				// and exits, and no replica can take the Lease.
				rc.waitForbiddenInLogs(ctx, `resource "leases" in API group "coordination.k8s.io"`)
				gomega.Eventually(ctx, rc.c.Leaders).WithTimeout(suite.Config.LeaseDuration.Duration+takeoverSlack()).
					WithPolling(500*time.Millisecond).Should(gomega.BeEmpty(), "no replica leading")
				rc.externalProbeHPA(ctx, framework.Extended, rbacHPA, 2)
				gomega.Consistently(ctx, rc.c.Leaders).WithTimeout(suite.Config.SyncPeriod.Duration).Should(gomega.BeEmpty())
				rc.expectNoStatus(ctx, framework.Extended, rbacHPA)
			},
			restored: func(ctx context.Context, rc *rbacCase) {
				leader, err := rc.c.WaitForLeader(ctx, -1)
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				gomega.Expect(rc.c.WaitReady(ctx, leader)).To(gomega.Succeed())
				rc.f.WaitForReplicas(ctx, rbacTarget, 2, reaction())
			},
		},
	}
}

// cpuHPA scales on CPU utilization, which needs the resource metrics API.
func cpuHPA(name, target string) *v2.HorizontalPodAutoscaler {
	hpa := framework.ExternalHPA(name, target, "unused", autoscalingv2.ValueMetricType, "1", 1, 5)
	hpa.Spec.Metrics = []v2.MetricSpec{{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)},
		},
	}}
	return hpa
}

// objectHPA scales on a custom metric of the target Deployment itself:
// Value 10, so a metric of 20 asks for twice the current replicas.
func objectHPA(name, target, metric string) *v2.HorizontalPodAutoscaler {
	hpa := framework.ExternalHPA(name, target, "unused", autoscalingv2.ValueMetricType, "1", 1, 2)
	hpa.Spec.Metrics = []v2.MetricSpec{{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
			Metric:          autoscalingv2.MetricIdentifier{Name: metric},
			Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr.To(resource.MustParse("10"))},
		},
	}}
	return framework.NoScaleDownStabilization(hpa)
}
