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
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/metrics/testutil"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// TestFetchCounterCountsEachFetchByOutcome fetches each metric a known
// number of times and reads the counters back in the three ways they are
// exposed.
func TestFetchCounterCountsEachFetchByOutcome(t *testing.T) {
	p, counter := newTestProvider(t, map[string]string{
		"external.queue_depth": "30",
		"external.broken":      "error",
		"external.drained":     "empty",
		"custom.pods.rps":      "10",
	})
	ctx := testContext(t, 10*time.Second)
	external := func(metric, selector string) {
		_, _ = p.GetExternalMetric(ctx, "default", mustSelector(t, selector), provider.ExternalMetricInfo{Metric: metric})
	}
	external("queue_depth", "")
	external("queue_depth", "")
	external("queue_depth", "queue=none") // matches no series
	external("broken", "")
	external("drained", "")
	external("missing", "")
	rps := provider.CustomMetricInfo{GroupResource: pods, Namespaced: true, Metric: "rps"}
	_, _ = p.GetMetricBySelector(ctx, "default", mustSelector(t, "app=web"), rps, labels.Everything())
	_, _ = p.GetMetricByName(ctx, types.NamespacedName{Namespace: "default", Name: "web-1"}, rps, labels.Everything())

	want := []FetchCount{
		{FetchKey{APICustom, "rps", ResultOK}, 2},
		{FetchKey{APIExternal, "broken", ResultError}, 1},
		{FetchKey{APIExternal, "drained", ResultEmpty}, 1},
		{FetchKey{APIExternal, "missing", ResultNotFound}, 1},
		{FetchKey{APIExternal, "queue_depth", ResultEmpty}, 1},
		{FetchKey{APIExternal, "queue_depth", ResultOK}, 2},
	}

	t.Run("snapshot", func(t *testing.T) {
		got := counter.Snapshot()
		if len(got) != len(want) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("counter %d: got %+v, want %+v", i, got[i], want[i])
			}
		}
		if n := counter.Total(APIExternal, "queue_depth"); n != 3 {
			t.Errorf("total of queue_depth %d, want 3", n)
		}
	})

	t.Run("JSON endpoint", func(t *testing.T) {
		rec := httptest.NewRecorder()
		counter.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/fetches", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d", rec.Code)
		}
		var body struct {
			Fetches []FetchCount `json:"fetches"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("decoding %s: %v", rec.Body, err)
		}
		if len(body.Fetches) != len(want) || body.Fetches[5] != want[5] {
			t.Errorf("got %+v, want %+v", body.Fetches, want)
		}
		if !strings.Contains(rec.Body.String(), `{"api":"external","metric":"queue_depth","result":"ok","count":2}`) {
			t.Errorf("unexpected JSON %s", rec.Body)
		}
	})

	t.Run("Prometheus collector", func(t *testing.T) {
		expected := `
# HELP test_metrics_adapter_fetches_total [ALPHA] Fetches of each metric by the API it was asked through and its outcome.
# TYPE test_metrics_adapter_fetches_total counter
test_metrics_adapter_fetches_total{api="custom",metric="rps",result="ok"} 2
test_metrics_adapter_fetches_total{api="external",metric="broken",result="error"} 1
test_metrics_adapter_fetches_total{api="external",metric="drained",result="empty"} 1
test_metrics_adapter_fetches_total{api="external",metric="missing",result="not_found"} 1
test_metrics_adapter_fetches_total{api="external",metric="queue_depth",result="empty"} 1
test_metrics_adapter_fetches_total{api="external",metric="queue_depth",result="ok"} 2
`
		if err := testutil.CustomCollectAndCompare(counter.Collector(), strings.NewReader(expected), fetchesMetricName); err != nil {
			t.Error(err)
		}
	})
}
