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

package app

import (
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/component-base/metrics"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// recordingRegistry is a KubeRegistry that keeps what is registered on it,
// so that the names of metrics without a series yet (a vector before its
// first observation) are known from their collectors.
type recordingRegistry struct {
	metrics.KubeRegistry
	t          *testing.T
	registered []metrics.Registerable
}

func (r *recordingRegistry) MustRegister(cs ...metrics.Registerable) {
	r.registered = append(r.registered, cs...)
	r.KubeRegistry.MustRegister(cs...)
}

func (r *recordingRegistry) Register(c metrics.Registerable) error {
	r.registered = append(r.registered, c)
	return r.KubeRegistry.Register(c)
}

// The collectors of these two carry no name this test could read: one
// registered this way has to be taught to it.
func (r *recordingRegistry) CustomMustRegister(...metrics.StableCollector) {
	r.t.Fatal("a StableCollector was registered: teach exportedNames its metrics")
}

func (r *recordingRegistry) RawMustRegister(...prometheus.Collector) {
	r.t.Fatal("a raw collector was registered: teach exportedNames its metrics")
}

// exportedNames returns the names of the series that /metrics serves,
// histograms' _bucket, _sum and _count included, each with where it comes
// from. The registry is filled by the calls the binary makes on it (the
// HPA controller's monitor in runControllers, the shard gauges in
// runSharded, the build info in Run) and its names are read from the
// collectors, hidden ones left out; client-go's families (workqueue_*,
// rest_client_*, leader_election_*) and the process_* and go_* collectors
// come from the legacy registry, once client-go is used as the binary uses
// it, through the gatherer that /metrics serves.
func exportedNames(t *testing.T) map[string]string {
	registry := &recordingRegistry{KubeRegistry: metrics.NewKubeRegistry(), t: t}
	monitor.New(registry)
	newShardsHeldGauge(registry)
	newSelectorHonoredGauge(registry)
	registerBuildInfo(registry)

	names := map[string]string{}
	for _, c := range registry.registered {
		if h, ok := c.(interface{ IsHidden() bool }); ok && h.IsHidden() {
			continue
		}
		for _, n := range seriesNames(c) {
			names[n] = "the controller's registry"
		}
	}

	useClientGo(t)
	families, err := metricsGatherer(metrics.NewKubeRegistry()).Gather()
	if err != nil {
		t.Fatalf("gathering the legacy registry: %v", err)
	}
	for _, f := range families {
		for _, n := range familySeriesNames(f.GetName(), f.GetType().String()) {
			names[n] = "client-go or the process (legacy registry)"
		}
	}
	return names
}

// seriesNames are the names of the series of a component-base collector.
func seriesNames(c metrics.Registerable) []string {
	switch c.(type) {
	case *metrics.Histogram, *metrics.HistogramVec, *metrics.TimingHistogram, *metrics.TimingHistogramVec:
		return familySeriesNames(c.FQName(), "HISTOGRAM")
	case *metrics.Summary, *metrics.SummaryVec:
		return familySeriesNames(c.FQName(), "SUMMARY")
	}
	return []string{c.FQName()}
}

// familySeriesNames are the names of the series of a family of the type
// (a client_model MetricType name).
func familySeriesNames(name, typ string) []string {
	switch typ {
	case "HISTOGRAM", "GAUGE_HISTOGRAM":
		return []string{name, name + "_bucket", name + "_sum", name + "_count"}
	case "SUMMARY":
		return []string{name, name + "_sum", name + "_count"}
	}
	return []string{name}
}

func TestExportedNames(t *testing.T) {
	names := exportedNames(t)
	// One of each kind, so that a change that empties a source is seen.
	for _, want := range []string{
		"horizontal_pod_autoscaler_controller_reconciliations_total",
		"horizontal_pod_autoscaler_controller_reconciliation_duration_seconds_bucket",
		"horizontal_pod_autoscaler_controller_desired_replicas",
		"leader_election_master_status",
		"workqueue_depth",
		"workqueue_queue_duration_seconds_count",
		"rest_client_requests_total",
		"rest_client_rate_limiter_duration_seconds_bucket",
		"process_resident_memory_bytes",
		"go_goroutines",
	} {
		if _, ok := names[want]; !ok {
			t.Errorf("%s is not among the exported names: %s", want, fmt.Sprint(names))
		}
	}
}
