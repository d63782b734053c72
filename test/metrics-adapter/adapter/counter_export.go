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

package adapter

import (
	"encoding/json"
	"net/http"

	"k8s.io/component-base/metrics"
)

// fetchesMetricName is the Prometheus name of the fetch counters.
const fetchesMetricName = "test_metrics_adapter_fetches_total"

// ServeHTTP answers the counters as JSON:
// {"fetches":[{"api":"external","metric":"queue_depth","result":"ok","count":3}]}.
func (c *FetchCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "only GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		Fetches []FetchCount `json:"fetches"`
	}{Fetches: c.Snapshot()})
}

// Collector exposes the counters as the Prometheus counter
// test_metrics_adapter_fetches_total{api,metric,result}, for a registry of
// k8s.io/component-base/metrics (the adapter's /metrics endpoint).
func (c *FetchCounter) Collector() metrics.StableCollector {
	return &fetchCollector{
		counter: c,
		desc: metrics.NewDesc(fetchesMetricName,
			"Fetches of each metric by the API it was asked through and its outcome.",
			[]string{"api", "metric", "result"}, nil, metrics.ALPHA, ""),
	}
}

type fetchCollector struct {
	metrics.BaseStableCollector
	counter *FetchCounter
	desc    *metrics.Desc
}

func (f *fetchCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- f.desc }

func (f *fetchCollector) CollectWithStability(ch chan<- metrics.Metric) {
	for _, c := range f.counter.Snapshot() {
		ch <- metrics.NewLazyConstMetric(f.desc, metrics.CounterValue, float64(c.Count), c.API, c.Metric, c.Result)
	}
}
