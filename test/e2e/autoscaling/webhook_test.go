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
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kube-hpa/kube-hpa/test/e2e/webhookcases"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// loadWebhookTable reads the admission table while ginkgo builds the spec
// tree, so that each case becomes a spec of its own.
func loadWebhookTable() (*webhookcases.Table, error) {
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		return nil, err
	}
	return webhookcases.Load(filepath.Join(root, filepath.FromSlash(webhookcases.RelativeDir)))
}

var _ = sigDescribe([]string{featureHPA, featureFallback, featureZero, featureSyncPeriod, crdMode}, "HorizontalPodAutoscaler admission", func() {
	f := newFramework("admission")
	f.NoPods = true

	table, err := loadWebhookTable()
	if err != nil {
		ginkgo.It("should read the admission table", func() {
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		})
		return
	}
	var entries []ginkgo.TableEntry
	for _, c := range table.Cases {
		verb := "reject"
		if c.Allowed {
			verb = "accept"
		}
		entries = append(entries, ginkgo.Entry(fmt.Sprintf("%s %s: %s", verb, c.Manifest, c.Why), c))
	}

	// Each manifest goes through kubectl to the real kube-apiserver: CRD
	// schema first, then the webhook of the controller replicas. The
	// answer must be the Go validator's (cases_test.go of the validation
	// package checks the same table).
	ginkgo.DescribeTable("should answer kubectl apply as the validation table says",
		func(ctx context.Context, c webhookcases.Case) {
			for gate, on := range table.Gates {
				if suite.Config.FeatureGates[gate] != on {
					ginkgo.Skip(fmt.Sprintf("the table assumes %s=%t; the controller runs %v", gate, on, suite.Config.FeatureGates))
				}
			}
			out, err := f.Kubectl(ctx, "", "apply", "-n", f.Namespace, "-f", table.Path(c))
			if c.Allowed {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s must be accepted", c.Manifest)
				gomega.Expect(out).To(gomega.ContainSubstring("created"))
				return
			}
			gomega.Expect(err).To(gomega.HaveOccurred(), "%s must be rejected; kubectl said: %s", c.Manifest, out)
			msg := err.Error()
			// A rejection for the wrong reason (the webhook unreachable) is
			// not the answer the table asks for.
			gomega.Expect(msg).NotTo(gomega.ContainSubstring("failed calling webhook"))
			gomega.Expect(msg).To(gomega.Or(gomega.ContainSubstring("is invalid"), gomega.ContainSubstring("denied the request")))
			// The schema answers first where it can, naming its own paths.
			for _, field := range c.FieldsNamedByTheSchema() {
				gomega.Expect(msg).To(gomega.ContainSubstring(field+":"), "kubectl's error must name %s", field)
			}
			ginkgo.AddReportEntry("kubectl", strings.TrimSpace(msg))
		},
		entries,
	)
})
