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
	"net/url"
	"reflect"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

func TestFetchLog(t *testing.T) {
	at := func(s int) time.Time { return testNow.Add(time.Duration(s) * time.Second) }
	nanos := func(secs ...int) []int64 {
		out := make([]int64, len(secs))
		for i, s := range secs {
			out[i] = at(s).UnixNano()
		}
		return out
	}
	orders := SeriesKey{API: APIExternal, Metric: "queue_depth", Selector: "queue=orders"}
	payments := SeriesKey{API: APIExternal, Metric: "queue_depth", Selector: "queue=payments"}
	all := SeriesKey{API: APIExternal, Metric: "queue_depth"}
	type fetch struct {
		key SeriesKey
		at  int
	}
	tests := []struct {
		name    string
		keep    int
		fetches []fetch
		since   time.Time
		want    []SeriesFetches
	}{
		{
			name:    "each selector of a metric is a series of its own, sorted by selector",
			fetches: []fetch{{payments, 1}, {orders, 2}, {all, 3}, {orders, 17}},
			want: []SeriesFetches{
				{SeriesKey: all, UnixNanos: nanos(3)},
				{SeriesKey: orders, UnixNanos: nanos(2, 17)},
				{SeriesKey: payments, UnixNanos: nanos(1)},
			},
		},
		{
			name:    "since leaves out older fetches, and the series that has none left",
			fetches: []fetch{{payments, 1}, {orders, 2}, {orders, 17}},
			since:   at(2),
			want:    []SeriesFetches{{SeriesKey: orders, UnixNanos: nanos(2, 17)}},
		},
		{
			name:    "a full series drops its oldest time",
			keep:    2,
			fetches: []fetch{{orders, 1}, {orders, 2}, {orders, 3}, {payments, 4}},
			want: []SeriesFetches{
				{SeriesKey: orders, UnixNanos: nanos(2, 3)},
				{SeriesKey: payments, UnixNanos: nanos(4)},
			},
		},
		{
			name:    "times received out of order come back in order",
			fetches: []fetch{{orders, 5}, {orders, 4}},
			want:    []SeriesFetches{{SeriesKey: orders, UnixNanos: nanos(4, 5)}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewFetchLog(tc.keep)
			for _, f := range tc.fetches {
				l.Add(f.key, at(f.at))
			}
			if got := l.Since(tc.since); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Since: got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestFetchLogRecordsEachExternalFetchOnArrival fetches through the
// provider, one fetch held by a delay, and reads the times back over HTTP.
func TestFetchLogRecordsEachExternalFetchOnArrival(t *testing.T) {
	clk := testingclock.NewFakeClock(testNow)
	l := NewFetchLog(0)
	p, err := New(Options{
		Source:   NewStaticSource(map[string]string{"external.queue_depth": `{value: "30", labels: {queue: orders}}`, "external.slow": "{value: 1, delay: 1ms}"}),
		Clock:    clk,
		FetchLog: l,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t, 10*time.Second)
	_, _ = p.GetExternalMetric(ctx, "default", mustSelector(t, "queue=orders"), provider.ExternalMetricInfo{Metric: "queue_depth"})
	clk.Step(15 * time.Second)
	_, _ = p.GetExternalMetric(ctx, "default", mustSelector(t, "queue=orders"), provider.ExternalMetricInfo{Metric: "queue_depth"})
	_, _ = p.GetExternalMetric(ctx, "default", nil, provider.ExternalMetricInfo{Metric: "missing"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = p.GetExternalMetric(ctx, "default", nil, provider.ExternalMetricInfo{Metric: "slow"})
	}()
	// The held fetch is in the log before its answer.
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(time.Second)
	<-done

	tests := []struct {
		name  string
		query string
		want  []SeriesFetches
	}{
		{
			name: "every fetch, known metric or not, at its arrival",
			want: []SeriesFetches{
				{SeriesKey: SeriesKey{APIExternal, "missing", ""}, UnixNanos: []int64{testNow.Add(15 * time.Second).UnixNano()}},
				{SeriesKey: SeriesKey{APIExternal, "queue_depth", "queue=orders"}, UnixNanos: []int64{testNow.UnixNano(), testNow.Add(15 * time.Second).UnixNano()}},
				{SeriesKey: SeriesKey{APIExternal, "slow", ""}, UnixNanos: []int64{testNow.Add(15 * time.Second).UnixNano()}},
			},
		},
		{
			name:  "since an RFC 3339 time",
			query: "?since=" + url.QueryEscape(testNow.Add(time.Second).Format(time.RFC3339Nano)),
			want: []SeriesFetches{
				{SeriesKey: SeriesKey{APIExternal, "missing", ""}, UnixNanos: []int64{testNow.Add(15 * time.Second).UnixNano()}},
				{SeriesKey: SeriesKey{APIExternal, "queue_depth", "queue=orders"}, UnixNanos: []int64{testNow.Add(15 * time.Second).UnixNano()}},
				{SeriesKey: SeriesKey{APIExternal, "slow", ""}, UnixNanos: []int64{testNow.Add(15 * time.Second).UnixNano()}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			l.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/fetch-times"+tc.query, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var body struct {
				Series []SeriesFetches `json:"series"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("decoding %s: %v", rec.Body, err)
			}
			if !reflect.DeepEqual(body.Series, tc.want) {
				t.Errorf("series: got %+v, want %+v", body.Series, tc.want)
			}
		})
	}

	t.Run("a since that is not a time is a bad request", func(t *testing.T) {
		rec := httptest.NewRecorder()
		l.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/fetch-times?since=yesterday", nil))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("status %d, want 400", rec.Code)
		}
	})
}

func TestNilFetchLogRecordsNothing(t *testing.T) {
	var l *FetchLog
	l.record(APIExternal, "queue_depth", nil, testNow) // must not panic
}
