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
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// examplesMetric is the External metric that every example reads, by
// label; the examples spec owns it (the adapter serves a metric name to
// all namespaces), so no other spec may use this name.
const examplesMetric = "queue_depth"

var _ = sigDescribe([]string{featureHPA, featureFallback, featureZero}, "deploy/examples", func() {
	f := newFramework("examples")

	ginkgo.It("should be accepted by kubectl apply and get conditions from the controller", func(ctx context.Context) {
		kind := hpaKind()
		dir, wantGroupKind := examplesDir(suite.Config.Mode)
		files, err := filepath.Glob(filepath.Join(suite.Config.RepoRoot, filepath.FromSlash(dir), "*.yaml"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(files).NotTo(gomega.BeEmpty())

		// The examples name namespace default; kubectl refuses -n with a
		// manifest of another namespace, so each object is applied
		// without it, into the spec's namespace.
		type example struct {
			file string
			hpa  *unstructured.Unstructured
		}
		var examples []example
		for _, file := range files {
			objs, err := framework.ReadManifests(file)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			for _, o := range objs {
				gomega.Expect(o.GetObjectKind().GroupVersionKind().GroupKind()).To(gomega.Equal(wantGroupKind),
					"%s holds something other than a %s HPA", file, kind)
				examples = append(examples, example{file: filepath.Base(file), hpa: o})
			}
		}

		ginkgo.By("creating the Deployments the examples target")
		for _, e := range examples {
			target, _, _ := unstructured.NestedString(e.hpa.Object, "spec", "scaleTargetRef", "name")
			kind, _, _ := unstructured.NestedString(e.hpa.Object, "spec", "scaleTargetRef", "kind")
			gomega.Expect(kind).To(gomega.Equal("Deployment"), "%s targets a %s", e.file, kind)
			f.CreateDeployment(ctx, target, 1)
		}
		// Values that the examples' targets turn into a few replicas, and
		// 0 for the scale-to-zero example.
		f.SetExternalMetric(ctx, examplesMetric, `
- value: "60"
  labels: {queue: orders}
- value: "0"
  labels: {queue: batch}
- value: "100"
  labels: {queue: events}
`)

		for _, e := range examples {
			ginkgo.By("kubectl apply of " + e.file)
			obj := e.hpa.DeepCopy()
			obj.SetNamespace("")
			data, err := json.Marshal(obj.Object)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			out, err := f.Kubectl(ctx, string(data), "apply", "-n", f.Namespace, "-f", "-")
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "kubectl apply of %s", e.file)
			gomega.Expect(out).To(gomega.ContainSubstring("created"))
		}

		for _, e := range examples {
			ginkgo.By("waiting for conditions on " + e.hpa.GetName())
			// resourceReaction: the CPU example's first reading takes two
			// scrapes of metrics-server.
			f.WaitForHPA(ctx, kind, e.hpa.GetName(), resourceReaction(), "AbleToScale and ScalingActive=True",
				func(h *v2.HorizontalPodAutoscaler) bool {
					return framework.FindCondition(h, autoscalingv2.AbleToScale) != nil &&
						framework.ConditionMatcher(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound")(h)
				})
			if strings.Contains(e.file, "fallback") {
				// The gate is on and the metric is healthy: the fallback's
				// status says so.
				hpa := f.WaitForHPA(ctx, kind, e.hpa.GetName(), reaction(), "fallbackStatus Normal",
					func(h *v2.HorizontalPodAutoscaler) bool {
						return len(h.Status.CurrentMetrics) == 1 && h.Status.CurrentMetrics[0].External != nil &&
							h.Status.CurrentMetrics[0].External.FallbackStatus == v2.FallbackStatusNormal
					})
				gomega.Expect(hpa.Status.CurrentMetrics[0].External.FirstFailureTime).To(gomega.BeNil())
			}
		}

		// The scale-to-zero example's metric asks for 0 at once, but it
		// has no behavior, so the controller's default downscale
		// stabilization (5 minutes, as upstream) holds the current count:
		// the condition says so, which is what a user sees first.
		zero := examples[indexOf(examples, func(e example) bool { return e.file == "scale-to-zero.yaml" })]
		f.WaitForCondition(ctx, kind, zero.hpa.GetName(), autoscalingv2.AbleToScale, corev1.ConditionTrue, "ScaleDownStabilized", reaction())
	})
})

// examplesDir is the directory of the examples of mode and the kind they
// hold: the extended kind in CRD mode, native autoscaling/v2 with the
// fallback in in-tree mode (deploy/examples/native, which a stock API
// server refuses and the CRD mode therefore never applies).
func examplesDir(mode framework.Mode) (string, schema.GroupKind) {
	if mode == framework.ModeInTree {
		return "deploy/examples/native", autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler").GroupKind()
	}
	return "deploy/examples", v2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler").GroupKind()
}

func indexOf[T any](s []T, match func(T) bool) int {
	for i, v := range s {
		if match(v) {
			return i
		}
	}
	ginkgo.Fail("no element matches")
	return -1
}
