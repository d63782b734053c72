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
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/labels"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// fakePrometheus answers /api/v1/query as Prometheus's HTTP API does, by
// the query: "orders" a vector of two series, "none" no series, "bad" a
// refused query, "broken" a 503 from a proxy in front, "slow" nothing
// until the client gives up.
func fakePrometheus(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.Form.Get("query") {
		case "orders":
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[`+
				`{"metric":{"__name__":"queue_depth","queue":"orders"},"value":[1700000000,"30"]},`+
				`{"metric":{"__name__":"queue_depth","queue":"payments"},"value":[1700000000,"5"]}]}}`)
		case "none":
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
		case "bad":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"1:1: parse error: unexpected end of input"}`)
		case "broken":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, "upstream connect error")
		case "slow":
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPrometheusMode fetches external metrics of Prometheus mode through
// client_golang's API client, as the adapter's binary does.
func TestPrometheusMode(t *testing.T) {
	srv := fakePrometheus(t)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // a port that refuses connections
	pool := NewPrometheusPool(PrometheusPoolOptions{DefaultURL: srv.URL, Timeout: 200 * time.Millisecond})

	tests := []struct {
		name     string
		value    string
		selector string
		want     []series
		// wantCode is the status of the error, 0 for none.
		wantCode    int32
		wantMessage string
		wantResult  string
	}{
		{
			name:       "the series of the query, labeled as Prometheus labels them",
			value:      "query: orders",
			want:       []series{{value: "30", labels: map[string]string{"queue": "orders"}}, {value: "5", labels: map[string]string{"queue": "payments"}}},
			wantResult: ResultOK,
		},
		{
			name:       "the HPA's selector picks among the series",
			value:      "query: orders",
			selector:   "queue=payments",
			want:       []series{{value: "5", labels: map[string]string{"queue": "payments"}}},
			wantResult: ResultOK,
		},
		{name: "a query without series is an empty list", value: "query: none", wantResult: ResultEmpty},
		{
			name: "a server named by the metric", value: fmt.Sprintf(`{query: orders, prometheus: %q}`, srv.URL), selector: "queue=orders",
			want: []series{{value: "30", labels: map[string]string{"queue": "orders"}}}, wantResult: ResultOK,
		},
		{
			name: "a server that is down is unavailable", value: fmt.Sprintf(`{query: orders, prometheus: %q}`, downURL),
			wantCode: http.StatusServiceUnavailable, wantMessage: "Prometheus is unreachable", wantResult: ResultError,
		},
		{name: "a slow server is a time-out", value: "query: slow", wantCode: http.StatusGatewayTimeout, wantMessage: "did not answer in time", wantResult: ResultTimeout},
		{name: "a refused query is a bad request", value: "query: bad", wantCode: http.StatusBadRequest, wantMessage: "parse error", wantResult: ResultError},
		{name: "a 503 in front of Prometheus is unavailable", value: "query: broken", wantCode: http.StatusServiceUnavailable, wantMessage: "server_error", wantResult: ResultError},
		{name: "the ConfigMap's faults come first", value: "{query: orders, fault: error}", wantCode: http.StatusInternalServerError, wantMessage: "injected", wantResult: ResultError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			counter := NewFetchCounter()
			p, err := New(Options{
				Source:     NewStaticSource(map[string]string{"external.queue_depth": tc.value}),
				Clock:      testingclock.NewFakeClock(testNow),
				Counter:    counter,
				Prometheus: pool,
			})
			if err != nil {
				t.Fatal(err)
			}
			selector := labels.Everything()
			if tc.selector != "" {
				selector = mustSelector(t, tc.selector)
			}
			list, err := p.GetExternalMetric(testContext(t, 10*time.Second), "default", selector, provider.ExternalMetricInfo{Metric: "queue_depth"})
			if got := counter.Snapshot(); len(got) != 1 || got[0].Result != tc.wantResult {
				t.Errorf("counted %+v, want one %s", got, tc.wantResult)
			}
			if tc.wantCode != 0 {
				checkStatus(t, err, tc.wantCode, tc.wantMessage)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(list.Items) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", list.Items, tc.want)
			}
			for i, item := range list.Items {
				if item.MetricName != "queue_depth" || item.Value.String() != tc.want[i].value || !labels.Equals(item.MetricLabels, tc.want[i].labels) {
					t.Errorf("item %d: %s %s %v, want queue_depth %s %v", i, item.MetricName, item.Value.String(), item.MetricLabels, tc.want[i].value, tc.want[i].labels)
				}
			}
		})
	}
}

func TestPrometheusPool(t *testing.T) {
	tests := []struct {
		name       string
		defaultURL string
		url        string
		wantErr    bool
	}{
		{name: "the default server for a metric that names none", defaultURL: "http://127.0.0.1:9090"},
		{name: "the metric's own server", url: "http://127.0.0.1:9091"},
		{name: "the metric's server over the default", defaultURL: "http://127.0.0.1:9090", url: "http://127.0.0.1:9091"},
		{name: "no server at all", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pool := NewPrometheusPool(PrometheusPoolOptions{DefaultURL: tc.defaultURL})
			q, err := pool.Querier(tc.url)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("got a client %v, want an error", q)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			again, err := pool.Querier(tc.url)
			if err != nil || again != q {
				t.Errorf("a second call built another client (%v)", err)
			}
		})
	}
}

// TestQueryMetricWithoutPrometheus: a query metric on an adapter without
// any Prometheus fails with the reason, like a typo in the ConfigMap.
func TestQueryMetricWithoutPrometheus(t *testing.T) {
	p, _ := newTestProvider(t, map[string]string{"external.queue_depth": "query: sum(queue_depth)"})
	_, err := p.GetExternalMetric(testContext(t, 10*time.Second), "default", labels.Everything(), provider.ExternalMetricInfo{Metric: "queue_depth"})
	checkStatus(t, err, http.StatusInternalServerError, "--prometheus-url")
}

// TestQueryAtTheClockTime: the query is evaluated at the provider's clock,
// the time the answer is stamped with.
func TestQueryAtTheClockTime(t *testing.T) {
	fake := &fakeQuerier{value: model.Vector{{Metric: model.Metric{}, Value: 3}}}
	p, err := New(Options{
		Source:     NewStaticSource(map[string]string{"external.queue_depth": "query: sum(queue_depth)"}),
		Clock:      testingclock.NewFakeClock(testNow),
		Prometheus: fakeClients{"": fake},
	})
	if err != nil {
		t.Fatal(err)
	}
	list, err := p.GetExternalMetric(testContext(t, 10*time.Second), "default", labels.Everything(), provider.ExternalMetricInfo{Metric: "queue_depth"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.queries) != 1 || fake.queries[0] != "sum(queue_depth)" || !fake.times[0].Equal(testNow) {
		t.Errorf("queries %v at %v, want sum(queue_depth) at %v", fake.queries, fake.times, testNow)
	}
	if len(list.Items) != 1 || !list.Items[0].Timestamp.Time.Equal(testNow) {
		t.Errorf("items %+v, want one stamped %v", list.Items, testNow)
	}
}
