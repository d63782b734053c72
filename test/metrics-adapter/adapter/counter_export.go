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
