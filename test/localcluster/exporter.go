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

package localcluster

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Exporter serves gauges in Prometheus's exposition format at /metrics on
// a loopback port, for a local Prometheus to scrape: the metrics
// provider's side of a test, whose values the test (Set, Delete) or a
// person (PUT or DELETE /gauges/<name>?<label>=<value>, the value as the
// body) sets. It is safe for concurrent use.
type Exporter struct {
	mu sync.Mutex
	// gauges holds the series of each metric name.
	gauges map[string]*gaugeFamily

	listener net.Listener
	server   *http.Server
	served   chan error
}

// gaugeFamily is the series of one metric name; every series of a name has
// the same label names, as Prometheus's client library requires.
type gaugeFamily struct {
	labelNames []string
	// series maps the label values, joined, to the series.
	series map[string]gaugeSeries
}

type gaugeSeries struct {
	labelValues []string
	value       float64
}

// gaugeHelp is the HELP text of every gauge.
const gaugeHelp = "A value set by a kube-hpa test or demo."

// StartExporter serves an exporter with no gauges on a free loopback port
// until Close.
func StartExporter() (*Exporter, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("exporter: %w", err)
	}
	e := &Exporter{gauges: map[string]*gaugeFamily{}, listener: l, served: make(chan error, 1)}
	registry := prometheus.NewRegistry()
	registry.MustRegister(e)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	mux.HandleFunc("PUT /gauges/{name}", e.putGauge)
	mux.HandleFunc("DELETE /gauges/{name}", e.deleteGauge)
	e.server = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { e.served <- e.server.Serve(l) }()
	return e, nil
}

// Addr is the host:port Prometheus scrapes.
func (e *Exporter) Addr() string { return e.listener.Addr().String() }

// URL is the base URL of the exporter.
func (e *Exporter) URL() string { return "http://" + e.Addr() }

// Close stops serving.
func (e *Exporter) Close() error {
	err := e.server.Close()
	if served := <-e.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	return err
}

// Set gives the series of name with labels the value. A name keeps the
// label names of its first series: another set of names is an error.
func (e *Exporter) Set(name string, labels map[string]string, value float64) error {
	names := slices.Sorted(maps.Keys(labels))
	values := make([]string, len(names))
	for i, n := range names {
		values[i] = labels[n]
	}
	// The classic names, which every Prometheus and every PromQL parser
	// takes unquoted; the client library would accept any UTF-8 name and
	// serve it escaped, under another name than the test asked for.
	if !classicName(name, true) {
		return fmt.Errorf("gauge %q: not a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)", name)
	}
	for _, n := range names {
		if !classicName(n, false) || strings.HasPrefix(n, "__") {
			return fmt.Errorf("gauge %s: %q is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)", name, n)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	fam, ok := e.gauges[name]
	if !ok {
		fam = &gaugeFamily{labelNames: names, series: map[string]gaugeSeries{}}
		e.gauges[name] = fam
	}
	if !slices.Equal(fam.labelNames, names) {
		return fmt.Errorf("gauge %s has the labels %v, not %v", name, fam.labelNames, names)
	}
	fam.series[seriesKey(values)] = gaugeSeries{labelValues: values, value: value}
	return nil
}

// Delete removes the series of name with labels, if there is one: the next
// scrape ends it in Prometheus (a query then finds no series).
func (e *Exporter) Delete(name string, labels map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fam, ok := e.gauges[name]
	if !ok {
		return
	}
	values := make([]string, 0, len(fam.labelNames))
	for _, n := range fam.labelNames {
		values = append(values, labels[n])
	}
	delete(fam.series, seriesKey(values))
	if len(fam.series) == 0 {
		delete(e.gauges, name)
	}
}

// classicName tells whether s is a classic metric name (colons allowed)
// or label name.
func classicName(s string, colons bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		case c == ':' && colons:
		default:
			return false
		}
	}
	return true
}

// seriesKey joins label values with a byte that no value holds in practice.
func seriesKey(values []string) string { return strings.Join(values, "\xff") }

// Describe sends nothing: the gauges change at run time, which makes the
// exporter an unchecked collector.
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect sends every series.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, fam := range e.gauges {
		desc := prometheus.NewDesc(name, gaugeHelp, fam.labelNames, nil)
		for _, s := range fam.series {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, s.value, s.labelValues...)
		}
	}
}

// putGauge is Set over HTTP: PUT /gauges/<name>?<label>=<value>... with the
// value as the body.
func (e *Exporter) putGauge(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	value, err := strconv.ParseFloat(strings.TrimSpace(string(body)), 64)
	if err != nil {
		http.Error(w, fmt.Sprintf("the body must be a number: %v", err), http.StatusBadRequest)
		return
	}
	if err := e.Set(r.PathValue("name"), queryLabels(r), value); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// deleteGauge is Delete over HTTP.
func (e *Exporter) deleteGauge(w http.ResponseWriter, r *http.Request) {
	e.Delete(r.PathValue("name"), queryLabels(r))
	w.WriteHeader(http.StatusNoContent)
}

// queryLabels reads the labels of a series from the query string.
func queryLabels(r *http.Request) map[string]string {
	labels := map[string]string{}
	for k, v := range r.URL.Query() {
		if len(v) > 0 {
			labels[k] = v[len(v)-1]
		}
	}
	return labels
}
