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
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// Settings of the local environment's controllers.
const (
	// syncPeriod is the controllers' --horizontal-pod-autoscaler-sync-period.
	// Every reaction the specs wait for takes up to one period, and some
	// take several (a scale-up followed by a scale-down, a rate limit seen
	// over two steps), so upstream's 15s would triple most waits. 5s still
	// leaves the controller's own timing visible: behavior periods and
	// stabilization windows in the specs are several sync periods long.
	syncPeriod = 5 * time.Second
	// metricSharingWindow is the controllers'
	// --horizontal-pod-autoscaler-external-metric-sharing-window: its
	// default (15s) equals the default sync period, and the suite keeps
	// that relation, so an external metric is at most one period stale, as
	// with the defaults, rather than three.
	metricSharingWindow = syncPeriod
	// controllerReplicas are as many as deploy/deployment.yaml runs.
	controllerReplicas = 2
)

// crdModeFeatureGates are the gates of the controllers (and their webhook)
// in CRD mode: every alpha gate the specs need.
func crdModeFeatureGates() map[string]bool {
	return map[string]bool{
		"HPAExternalMetricFallback":         true,
		"HPAExternalMetricFallbackStrategy": true,
		"HPAConfigurableSyncPeriod":         true,
		"KubeHPADecisionTrace":              true,
		"HPAMetricSource":                   true,
	}
}

// inTreeFeatureGates are the gates of kube-apiserver and
// kube-controller-manager in in-tree mode: the alpha gates of KEP-5679,
// KEP-6382 and KEP-6003, and KEP-2021's, named so that the suite does not depend on its
// default. The in-tree patch has no fallback strategy, hence no gate for
// it.
func inTreeFeatureGates() map[string]bool {
	return map[string]bool{"HPAExternalMetricFallback": true, "HPAScaleToZero": true, "HPAMetricSource": true, "HPAConfigurableSyncPeriod": true}
}

// inTreeOptions is the local environment of the in-tree mode: the control
// plane of make intree, kube-controller-manager running its own HPA
// controller with KEP-5679's patch, at the suite's sync period and with a
// ServiceAccount per controller, the metrics adapter.
func inTreeOptions(root string) framework.LocalOptions {
	return framework.LocalOptions{
		RepoRoot:     root,
		Mode:         framework.ModeInTree,
		InTreeBinDir: os.Getenv(framework.EnvInTreeBinDir),
		SyncPeriod:   syncPeriod,
		FeatureGates: inTreeFeatureGates(),
	}
}

// suite is this ginkgo process's view of the environment, set by
// SynchronizedBeforeSuite on every process.
var suite *framework.Environment

// local is the environment process 1 started; nil on other processes and
// against an existing cluster.
var local *framework.Local

func TestAutoscaling(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "kube-hpa autoscaling e2e")
}

var _ = ginkgo.SynchronizedBeforeSuite(func(ctx context.Context) []byte {
	ctx = klog.NewContext(ctx, ginkgo.GinkgoLogr)
	root, err := localcluster.FindRepoRoot()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	mode, err := framework.ModeFromEnv()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var cfg framework.Config
	switch {
	case os.Getenv(framework.EnvKubeconfig) != "":
		cfg, err = framework.ExternalConfig(root)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	case mode == framework.ModeInTree:
		local, err = framework.StartLocal(ctx, inTreeOptions(root))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting the local in-tree e2e environment")
		cfg = local.Config()
		ginkgo.AddReportEntry("logs", cfg.LogDir)
	default:
		local, err = framework.StartLocal(ctx, framework.LocalOptions{
			RepoRoot:            root,
			Replicas:            controllerReplicas,
			SyncPeriod:          syncPeriod,
			MetricSharingWindow: metricSharingWindow,
			// The fallback, sync period and decision trace specs need the
			// alpha gates; HPAScaleToZero is on by default.
			FeatureGates:     crdModeFeatureGates(),
			ManageNativeHPAs: true,
			Verbosity:        2,
			// Tells which permissions of deploy/rbac.yaml the controllers
			// used (after the suite, in the report); costs the apiserver
			// little, as only the controllers' requests are recorded.
			AuditServiceAccount: true,
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting the local e2e environment")
		cfg = local.Config()
		ginkgo.AddReportEntry("logs", cfg.LogDir)
	}
	ginkgo.AddReportEntry("mode", fmt.Sprintf("%s (the KEP specs create %s HPAs)", cfg.Mode, cfg.HPAKind))
	data, err := json.Marshal(cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return data
}, func(data []byte) {
	var cfg framework.Config
	gomega.Expect(json.Unmarshal(data, &cfg)).To(gomega.Succeed())
	env, err := framework.NewEnvironment(cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	suite = env
}, ginkgo.NodeTimeout(5*time.Minute))

var _ = ginkgo.SynchronizedAfterSuite(func() {}, func() {
	if local == nil {
		return
	}
	// Stop also fails when any process of the environment survived it.
	gomega.Expect(local.Stop()).To(gomega.Succeed())
	ginkgo.GinkgoWriter.Printf("logs of every process: %s\n", local.Config().LogDir)
	usage, err := local.RBACUsage()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading the audit log")
	if usage != "" {
		ginkgo.AddReportEntry("RBAC usage by hpa-controller-manager", usage, ginkgo.ReportEntryVisibilityAlways)
	}
})
