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
	"encoding/json"
	"path/filepath"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// EnvPrometheusBinary overrides the prometheus binary of the local
// environment (default: _output/bin/prometheus, built by
// hack/build-upstream.sh).
const EnvPrometheusBinary = "E2E_PROMETHEUS"

// prometheusBinary is Prometheus's name in _output/bin.
const prometheusBinary = "prometheus"

// PrometheusPipeline is a spec's own metrics provider, as in production: a
// Prometheus on loopback scraping an exporter whose gauges the spec sets,
// queried by the test metrics adapter for the spec's external metrics of
// Prometheus mode (SetPromQLMetric). Each spec has its own, so that
// stopping it fails no other spec's metrics.
type PrometheusPipeline struct {
	Exporter *localcluster.Exporter
	Server   *localcluster.Prometheus
}

// StartPrometheus starts the running spec's pipeline and stops it after
// the spec. It needs the local environment: the adapter reaches the
// Prometheus of the spec's process on loopback.
func (f *Framework) StartPrometheus(ctx context.Context) *PrometheusPipeline {
	ginkgo.GinkgoHelper()
	gomega.Expect(f.Config.Local).To(gomega.BeTrue(), "a spec's Prometheus needs the local environment")
	exporter, err := localcluster.StartExporter()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(exporter.Close)
	// Under the environment's run directory (LogDir's parent), so that a
	// Prometheus that outlives the spec's process is a leftover process
	// of the environment, which the suite fails on.
	server, err := localcluster.StartPrometheus(klog.NewContext(ctx, ginkgo.GinkgoLogr), localcluster.PrometheusOptions{
		Binary:  binaryPath(f.Config.RepoRoot, EnvPrometheusBinary, prometheusBinary),
		Dir:     filepath.Join(filepath.Dir(f.Config.LogDir), "prometheus", f.Namespace),
		LogPath: filepath.Join(f.Config.LogDir, "prometheus-"+f.Namespace+".log"),
		Targets: []string{exporter.Addr()},
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting Prometheus (make e2e builds it)")
	ginkgo.DeferCleanup(server.Close)
	ginkgo.By("Prometheus at " + server.URL() + " scrapes the exporter at " + exporter.Addr() + " (log " + server.LogPath() + ")")
	return &PrometheusPipeline{Exporter: exporter, Server: server}
}

// SetGauge sets a gauge of the pipeline's exporter, which Prometheus reads
// at its next scrape (within a second).
func (p *PrometheusPipeline) SetGauge(name string, labels map[string]string, value float64) {
	ginkgo.GinkgoHelper()
	gomega.Expect(p.Exporter.Set(name, labels, value)).To(gomega.Succeed())
}

// SetPromQLMetric makes the adapter answer external metric name with the
// series of query, evaluated by p's Prometheus. The key is removed after
// the spec.
func (f *Framework) SetPromQLMetric(ctx context.Context, name, query string, p *PrometheusPipeline) {
	ginkgo.GinkgoHelper()
	value, err := json.Marshal(map[string]string{"query": query, "prometheus": p.Server.URL()})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	f.setMetric(ctx, externalKey(name), string(value))
}
