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
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// upstreamFeatures are the features whose specs the in-tree series add to
// upstream's test/e2e/autoscaling, one per KEP.
var upstreamFeatures = []string{"HPAExternalMetricFallback", "HPAMetricSource", "HPAConfigurableSyncPeriod"}

// upstreamSpecsTimeout bounds the run of upstream's specs: the fallback
// spec alone waits through a 180 s failure duration.
const upstreamSpecsTimeout = 15 * time.Minute

// The series are sent with specs in upstream's own e2e framework; this runs
// them as upstream's CI would, with the e2e.test built from the patched
// tree, against this suite's in-tree environment.
//
// Serial: upstream's specs do not survive the suite's disruptions (a
// restart of kube-controller-manager gave the HPA with syncPeriodSeconds:
// 600 a second pass), and they run too long for the disruptive specs to
// wait them out, so they run in the Serial phase, where nothing disrupts.
var _ = sigDescribe([]string{featureHPA, featureFallback, featureMetricSource, featureSyncPeriod, inTreeMode, serial}, "upstream's e2e specs of the in-tree series", func() {
	ginkgo.It("should pass when run by the e2e.test of the patched tree", func(ctx context.Context) {
		requireLocal()
		binary := suite.Config.UpstreamE2ETest
		_, err := os.Stat(binary)
		if err != nil && os.Getenv(framework.EnvInTreeBinDir) != "" {
			// An in-tree build made without --e2e.
			ginkgo.Skip(fmt.Sprintf("no e2e.test beside the in-tree builds of %s=%s (hack/build-intree.sh --release R --e2e builds it)",
				framework.EnvInTreeBinDir, os.Getenv(framework.EnvInTreeBinDir)))
		}
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "upstream's e2e.test of the patched tree: build it with hack/build-intree.sh --e2e (make e2e-intree does)")

		dir := filepath.Join(suite.Config.LogDir, "upstream-e2e")
		gomega.Expect(os.MkdirAll(dir, 0o755)).To(gomega.Succeed())
		logPath := filepath.Join(dir, "e2e.test.log")
		reportPath := filepath.Join(dir, "report.json")
		log, err := os.Create(logPath)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		defer func() { _ = log.Close() }()
		ginkgo.AddReportEntry("upstream e2e.test log", logPath)

		cmd := exec.CommandContext(ctx, binary, upstreamE2EArgs(suite.Config.Kubeconfig, dir, reportPath)...)
		cmd.Stdout, cmd.Stderr = log, log
		runErr := cmd.Run()

		specs, err := readUpstreamSpecs(reportPath)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the JSON report of e2e.test (its log: %s)", logPath)
		ginkgo.AddReportEntry("upstream specs", strings.Join(specs.summary(), "\n"), ginkgo.ReportEntryVisibilityAlways)
		gomega.Expect(specs.failed).To(gomega.BeEmpty(), "upstream specs that failed (log: %s)", logPath)
		for _, feature := range upstreamFeatures {
			gomega.Expect(specs.passedWith("[Feature:"+feature+"]")).To(gomega.BeNumerically(">=", 1),
				"no spec of [Feature:%s] passed: the series lost its spec or the focus misses it (log: %s)", feature, logPath)
		}
		gomega.Expect(runErr).NotTo(gomega.HaveOccurred(), "e2e.test (log: %s)", logPath)
	}, ginkgo.NodeTimeout(upstreamSpecsTimeout+2*time.Minute))
})

// upstreamE2EArgs are the flags of e2e.test for the series' specs against
// the cluster of kubeconfig: upstream's defaults otherwise (no clean start,
// so the rest of this suite's namespaces stay).
func upstreamE2EArgs(kubeconfig, reportDir, jsonReport string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--provider=skeleton",
		"--report-dir=" + reportDir,
		"--ginkgo.focus=" + fmt.Sprintf(`\[Feature:(%s)\]`, strings.Join(upstreamFeatures, "|")),
		"--ginkgo.json-report=" + jsonReport,
		"--ginkgo.timeout=" + upstreamSpecsTimeout.String(),
		"--ginkgo.no-color",
	}
}

// upstreamSpecs are the specs of an e2e.test run that did not skip.
type upstreamSpecs struct {
	passed, failed []string
}

// readUpstreamSpecs reads ginkgo's JSON report of an e2e.test run.
func readUpstreamSpecs(path string) (upstreamSpecs, error) {
	var specs upstreamSpecs
	data, err := os.ReadFile(path)
	if err != nil {
		return specs, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return specs, fmt.Errorf("decoding %s: %w", path, err)
	}
	for _, report := range reports {
		for _, spec := range report.SpecReports {
			if spec.LeafNodeType != types.NodeTypeIt {
				continue
			}
			switch {
			case spec.State == types.SpecStatePassed:
				specs.passed = append(specs.passed, spec.FullText())
			case spec.State.Is(types.SpecStateFailureStates):
				specs.failed = append(specs.failed, fmt.Sprintf("%s: %s", spec.FullText(), spec.Failure.Message))
			}
		}
	}
	return specs, nil
}

// passedWith counts the passed specs whose text has tag.
func (s upstreamSpecs) passedWith(tag string) int {
	n := 0
	for _, text := range s.passed {
		if strings.Contains(text, tag) {
			n++
		}
	}
	return n
}

func (s upstreamSpecs) summary() []string {
	var lines []string
	for _, text := range s.passed {
		lines = append(lines, "passed: "+text)
	}
	for _, text := range s.failed {
		lines = append(lines, "FAILED: "+text)
	}
	return lines
}
