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

package framework

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Framework is what one spec works with: the environment and a namespace
// of its own, created before the spec and deleted after it, so that specs
// on different ginkgo processes never see each other's objects. Create it
// in a container (like upstream's framework.NewDefaultFramework); its
// fields are valid inside the specs of that container.
type Framework struct {
	// BaseName prefixes the namespace's name.
	BaseName string
	*Environment
	// Namespace is the spec's namespace.
	Namespace string
	// NoPods skips waiting for the namespace's default ServiceAccount,
	// for specs that create no pods; set it when building the Framework.
	NoPods bool

	env func() *Environment
	// metricKeys are the metrics ConfigMap keys this spec set; they are
	// removed after it.
	metricKeys map[string]bool
	// loads are the spec's loads on its Deployments (SetLoad).
	loads *loads
}

// NewFramework registers the BeforeEach that gives every spec of the
// enclosing container its namespace. env returns the suite's environment,
// which exists only once the suite's setup has run.
func NewFramework(baseName string, env func() *Environment) *Framework {
	f := &Framework{BaseName: baseName, env: env}
	ginkgo.BeforeEach(f.beforeEach)
	ginkgo.JustAfterEach(f.dumpOnFailure)
	return f
}

// namespaceTimeout bounds the wait for a namespace's default
// ServiceAccount, which kube-controller-manager creates.
const namespaceTimeout = 30 * time.Second

func (f *Framework) beforeEach(ctx context.Context) {
	f.setUp(ctx, f.env())
}

// NewFrameworkIn gives the running spec a namespace of env, an
// environment other than the suite's (one the spec started), deleted with
// the spec's metrics after the spec like NewFramework's. Call it inside
// the spec.
func NewFrameworkIn(ctx context.Context, baseName string, env *Environment) *Framework {
	ginkgo.GinkgoHelper()
	f := &Framework{BaseName: baseName}
	f.setUp(ctx, env)
	// Cleanups run last registered first: the dump sees the namespace.
	ginkgo.DeferCleanup(f.dumpOnFailure)
	return f
}

func (f *Framework) setUp(ctx context.Context, env *Environment) {
	ginkgo.GinkgoHelper()
	f.Environment = env
	gomega.Expect(f.Environment).NotTo(gomega.BeNil(), "the suite's environment is not set up")
	f.metricKeys = map[string]bool{}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "e2e-" + f.BaseName + "-",
		Labels:       map[string]string{"e2e.kube-hpa.io/suite": "autoscaling"},
	}}
	ns, err := f.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating the spec's namespace")
	f.Namespace = ns.Name
	ginkgo.DeferCleanup(f.cleanup)
	if f.NoPods {
		return
	}
	// Pods are refused until the namespace's default ServiceAccount exists.
	gomega.Eventually(ctx, func(ctx context.Context) error {
		_, err := f.Kube.CoreV1().ServiceAccounts(f.Namespace).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).WithTimeout(namespaceTimeout).WithPolling(200*time.Millisecond).Should(gomega.Succeed(),
		"the default ServiceAccount of %s", f.Namespace)
}

// cleanup deletes the namespace without waiting (kube-controller-manager
// empties it in the background) and the spec's metrics.
func (f *Framework) cleanup(ctx context.Context) {
	if len(f.metricKeys) > 0 {
		patch := map[string]*string{}
		for k := range f.metricKeys {
			patch[k] = nil
		}
		gomega.Expect(f.patchMetrics(ctx, patch)).To(gomega.Succeed(), "removing the spec's metrics")
	}
	err := f.Kube.CoreV1().Namespaces().Delete(ctx, f.Namespace, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "deleting namespace %s", f.Namespace)
	}
}

// UniqueName makes a name unique to this spec, for things that are not
// namespaced, such as external metric names (the adapter serves them to
// every namespace).
func (f *Framework) UniqueName(base string) string {
	return base + "-" + f.Namespace
}

// dumpOnFailure attaches what the namespace holds to a failed spec's
// report, which is where one looks first.
func (f *Framework) dumpOnFailure(ctx context.Context) {
	if !ginkgo.CurrentSpecReport().Failed() || f.Namespace == "" {
		return
	}
	var b strings.Builder
	// The in-tree mode has no CRD, and kubectl would fail the whole get
	// on the resource it does not know.
	hpas := []string{"horizontalpodautoscalers.autoscaling.kube-hpa.io", "horizontalpodautoscalers.autoscaling"}
	if f.Config.Mode == ModeInTree {
		hpas = hpas[1:]
	}
	for _, what := range append([]string{"deployments,replicasets,pods"}, hpas...) {
		out, err := f.Kubectl(ctx, "", "get", what, "-n", f.Namespace, "-o", "wide")
		fmt.Fprintf(&b, "$ kubectl get %s -n %s\n%s%v\n", what, f.Namespace, out, errOrEmpty(err))
	}
	out, err := f.Kubectl(ctx, "", "get", strings.Join(hpas, ","), "-n", f.Namespace, "-o", "yaml")
	fmt.Fprintf(&b, "$ kubectl get hpas -o yaml\n%s%v\n", out, errOrEmpty(err))
	for _, e := range f.Events(ctx, "") {
		fmt.Fprintf(&b, "event %s %s/%s %s: %s (x%d, last %s)\n", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name,
			e.Reason, e.Message, e.Count, e.LastTimestamp.Format(time.RFC3339))
	}
	if f.Config.LogDir != "" {
		fmt.Fprintf(&b, "logs of every process: %s\n", f.Config.LogDir)
	}
	ginkgo.AddReportEntry("namespace "+f.Namespace, b.String(), ginkgo.ReportEntryVisibilityFailureOrVerbose)
}

func errOrEmpty(err error) any {
	if err == nil {
		return ""
	}
	return err
}
