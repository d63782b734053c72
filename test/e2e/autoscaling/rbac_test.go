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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"

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
// one rule per key.
func ruleKey(r rbacv1.PolicyRule) string {
	groups := slices.Clone(r.APIGroups)
	for i, g := range groups {
		if g == "" {
			groups[i] = "core"
		}
	}
	return strings.Join(groups, ",") + " " + strings.Join(r.Resources, ",")
}

// verbKey names one verb of a rule; rbacProbes is keyed by it.
func verbKey(r rbacv1.PolicyRule, verb string) string { return ruleKey(r) + " " + verb }

var _ = sigDescribe([]string{featureHPA, serial, disruptive, crdMode}, "hpa-controller-manager RBAC (deploy/rbac.yaml)", func() {
	f := newFramework("rbac")

	rbac, err := readDeployRBAC()
	if err != nil {
		ginkgo.It("should read deploy/rbac.yaml", func() { gomega.Expect(err).NotTo(gomega.HaveOccurred()) })
		return
	}
	var entries []ginkgo.TableEntry
	for i, r := range rbac.clusterRules {
		for _, verb := range r.Verbs {
			entries = append(entries, ginkgo.Entry(fmt.Sprintf("ClusterRole rule %d (%s) without %s", i, ruleKey(r), verb), rbacSpecTimeout, false, i, verb))
		}
	}
	for i, r := range rbac.roleRules {
		for _, verb := range r.Verbs {
			entries = append(entries, ginkgo.Entry(fmt.Sprintf("Role rule %d (%s) without %s", i, ruleKey(r), verb), rbacSpecTimeout, true, i, verb))
		}
	}

	// Each verb is taken out of its rule in the live role, alone, the
	// symptom its absence must cause is observed within a bounded time, and
	// the verb is put back, after which the symptom must go away: that the
	// verb was the cause, not a slow controller. A verb whose absence
	// shows nothing is one deploy/rbac.yaml must not grant, but for list
	// on the informers' resources, their fallback (informerListProbe).
	ginkgo.DescribeTable("should show what each verb of each rule is for, without it and with it back",
		func(ctx context.Context, inRole bool, index int, verb string) {
			requireLocal()
			rule := rbac.rules(inRole)[index]
			probe, ok := rbacProbes()[verbKey(rule, verb)]
			if !ok {
				ginkgo.Fail(fmt.Sprintf("no symptom is known for %q: add one to rbacProbes, or drop the verb from deploy/rbac.yaml if nothing needs it", verbKey(rule, verb)))
			}
			rc := &rbacCase{f: f, c: suite.Controllers, rbac: rbac}
			gomega.Expect(rc.c.WaitAllRunning(ctx)).To(gomega.Succeed())
			// The leader of the previous case may still be syncing.
			leader, err := rc.c.WaitForLeader(ctx, -1)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(rc.c.WaitReady(ctx, leader)).To(gomega.Succeed())
			if probe.setup != nil {
				probe.setup(ctx, rc)
			}
			rc.markLogs()

			ginkgo.By(fmt.Sprintf("removing %s from the rule %s", verb, ruleKey(rule)))
			restore := rc.removeVerb(ctx, inRole, index, verb)
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
			if probe.forbidden != "" {
				rc.waitForbiddenInLogs(ctx, probe.forbidden)
			}
			ginkgo.AddReportEntry("symptom after removal", time.Since(removed).Round(10*time.Millisecond).String())

			ginkgo.By(fmt.Sprintf("putting %s back", verb))
			restore(ctx)
			rc.waitAccess(ctx, probe.access, true)
			// Let an answer refused just before reach the logs, so that
			// what is logged from here on was asked with the verb back.
			time.Sleep(time.Second)
			rc.markLogs()
			restored := time.Now()
			probe.restored(ctx, rc)
			recovered = true
			if probe.forbidden != "" {
				rc.expectNoForbiddenInLogs(probe.forbidden)
			}
			ginkgo.AddReportEntry("recovery after restore", time.Since(restored).Round(10*time.Millisecond).String())
		},
		entries,
	)
})

// rbacSpecTimeout bounds one verb's case: a few reactions and leader
// restarts, so that a case that hangs does not eat the suite's time.
var rbacSpecTimeout = ginkgo.SpecTimeout(5 * time.Minute)

func (d *deployRBAC) rules(inRole bool) []rbacv1.PolicyRule {
	if inRole {
		return d.roleRules
	}
	return d.clusterRules
}

// rbacCase is the state of one verb's spec.
type rbacCase struct {
	f    *framework.Framework
	c    *framework.Controllers
	rbac *deployRBAC
	// logOffsets are the sizes of the replicas' logs at the last
	// markLogs (before the verb is removed, then before it is put back);
	// evidence is looked for after them.
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

// forbiddenLogged tells whether a replica logged, since markLogs, a
// Forbidden error that contains what.
func (rc *rbacCase) forbiddenLogged(what string) bool { return forbiddenIn(rc.logsSince(), what) }

// forbiddenIn tells whether a line of log is a Forbidden error that
// contains what.
func forbiddenIn(log, what string) bool {
	// klog quotes the error, escaping its own quotes.
	escaped := strings.ReplaceAll(what, `"`, `\"`)
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "forbidden") && (strings.Contains(line, what) || strings.Contains(line, escaped)) {
			return true
		}
	}
	return false
}

// waitForbiddenInLogs waits until a replica logs a Forbidden error that
// contains what: the API server's "cannot VERB resource ..." names the
// verb, so the log says which permission was missing.
func (rc *rbacCase) waitForbiddenInLogs(ctx context.Context, what string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func() bool { return rc.forbiddenLogged(what) }).
		WithTimeout(reaction()).WithPolling(500*time.Millisecond).Should(gomega.BeTrue(),
		"a controller replica to log a Forbidden error naming %s", what)
}

// expectNoForbiddenInLogs checks that no replica logged a Forbidden error
// containing what since markLogs.
func (rc *rbacCase) expectNoForbiddenInLogs(what string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(rc.forbiddenLogged(what)).To(gomega.BeFalse(),
		"a controller replica logged a Forbidden error naming %s", what)
}

// cannot is how the API server's Forbidden error names a request: verb,
// resource (with its subresource) and group.
func cannot(verb, resource, group string) string {
	return fmt.Sprintf("cannot %s resource %q in API group %q", verb, resource, group)
}

// removeVerb updates the live role without verb in rule index (without
// the rule when it was its only verb) and returns what puts the original
// back (idempotent).
func (rc *rbacCase) removeVerb(ctx context.Context, inRole bool, index int, verb string) func(context.Context) {
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
	original := rc.rbac.rules(inRole)
	gomega.Expect(update(ctx, withoutVerb(original, index, verb))).To(gomega.Succeed())
	restored := false
	return func(ctx context.Context) {
		if restored {
			return
		}
		restored = true
		gomega.Expect(update(ctx, original)).To(gomega.Succeed(), "restoring the verb")
	}
}

// withoutVerb copies rules without verb in rule index; a rule left
// without verbs is dropped, as RBAC refuses an empty one.
func withoutVerb(rules []rbacv1.PolicyRule, index int, verb string) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	for i, r := range rules {
		r = *r.DeepCopy()
		if i == index {
			r.Verbs = slices.DeleteFunc(r.Verbs, func(v string) bool { return v == verb })
			if len(r.Verbs) == 0 {
				continue
			}
		}
		out = append(out, r)
	}
	return out
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
