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
	"io"
	"net/http"
	"strings"
	"testing"
)

// exporterCall is one request of a scenario, and what it must answer.
type exporterCall struct {
	method, path, body string
	wantCode           int
}

func TestExporter(t *testing.T) {
	tests := []struct {
		name  string
		calls []exporterCall
		// want are lines /metrics must serve, wantAbsent lines it must not.
		want, wantAbsent []string
	}{
		{
			name: "a gauge set over HTTP is served with its labels",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/queue_depth?queue=orders", body: "30", wantCode: http.StatusNoContent},
				{method: http.MethodPut, path: "/gauges/queue_depth?queue=payments", body: "2.5", wantCode: http.StatusNoContent},
			},
			want: []string{`queue_depth{queue="orders"} 30`, `queue_depth{queue="payments"} 2.5`, "# TYPE queue_depth gauge"},
		},
		{
			name: "a second PUT replaces the value",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/queue_depth?queue=orders", body: "30", wantCode: http.StatusNoContent},
				{method: http.MethodPut, path: "/gauges/queue_depth?queue=orders", body: "4", wantCode: http.StatusNoContent},
			},
			want:       []string{`queue_depth{queue="orders"} 4`},
			wantAbsent: []string{`queue_depth{queue="orders"} 30`},
		},
		{
			name: "a deleted series is no longer served",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/queue_depth?queue=orders", body: "30", wantCode: http.StatusNoContent},
				{method: http.MethodPut, path: "/gauges/queue_depth?queue=payments", body: "5", wantCode: http.StatusNoContent},
				{method: http.MethodDelete, path: "/gauges/queue_depth?queue=orders", wantCode: http.StatusNoContent},
			},
			want:       []string{`queue_depth{queue="payments"} 5`},
			wantAbsent: []string{`queue="orders"`},
		},
		{
			name: "a gauge without labels",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/up_total", body: "1", wantCode: http.StatusNoContent},
			},
			want: []string{"up_total 1"},
		},
		{
			name: "a body that is no number is refused",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/queue_depth", body: "lots", wantCode: http.StatusBadRequest},
			},
			wantAbsent: []string{"queue_depth"},
		},
		{
			name: "an invalid metric name is refused",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/queue-depth", body: "1", wantCode: http.StatusBadRequest},
			},
			wantAbsent: []string{"queue"},
		},
		{
			name: "an invalid label name is refused",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/queue_depth?__name__=x", body: "1", wantCode: http.StatusBadRequest},
				{method: http.MethodPut, path: "/gauges/queue_depth?1queue=x", body: "1", wantCode: http.StatusBadRequest},
			},
			wantAbsent: []string{"queue"},
		},
		{
			name: "other label names for a known gauge are refused",
			calls: []exporterCall{
				{method: http.MethodPut, path: "/gauges/queue_depth?queue=orders", body: "1", wantCode: http.StatusNoContent},
				{method: http.MethodPut, path: "/gauges/queue_depth?topic=orders", body: "2", wantCode: http.StatusBadRequest},
			},
			want:       []string{`queue_depth{queue="orders"} 1`},
			wantAbsent: []string{"topic"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := StartExporter()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := e.Close(); err != nil {
					t.Errorf("closing: %v", err)
				}
			})
			for _, c := range tc.calls {
				req, err := http.NewRequest(c.method, e.URL()+c.path, strings.NewReader(c.body))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				msg, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != c.wantCode {
					t.Errorf("%s %s: %d %s, want %d", c.method, c.path, resp.StatusCode, msg, c.wantCode)
				}
			}
			page := scrape(t, e)
			for _, w := range tc.want {
				if !strings.Contains(page, w+"\n") {
					t.Errorf("/metrics lacks %q:\n%s", w, page)
				}
			}
			for _, w := range tc.wantAbsent {
				if strings.Contains(page, w) {
					t.Errorf("/metrics has %q:\n%s", w, page)
				}
			}
		})
	}
}

func scrape(t *testing.T, e *Exporter) string {
	t.Helper()
	resp, err := http.Get(e.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %v\n%s", resp.StatusCode, err, page)
	}
	return string(page)
}
