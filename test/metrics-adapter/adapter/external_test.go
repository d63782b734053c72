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
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// series is a value and its labels as a test expects them.
type series struct {
	value  string
	labels map[string]string
}

func TestGetExternalMetric(t *testing.T) {
	twoQueues := `
series:
- value: "30"
  labels: {queue: orders}
- value: 5
  labels: {queue: payments}
`
	tests := []struct {
		name     string
		data     map[string]string
		metric   string
		selector string
		want     []series
		// wantCode is the status of the error, 0 for none.
		wantCode int32
		// wantMessage is a part of the error's message.
		wantMessage string
	}{
		{
			name:   "a bare quantity is one series without labels",
			data:   map[string]string{"external.queue_depth": "30"},
			metric: "queue_depth",
			want:   []series{{value: "30"}},
		},
		{
			name:   "an object gives a value with labels",
			data:   map[string]string{"external.queue_depth": `{"value": "1500m", "labels": {"queue": "orders"}}`},
			metric: "queue_depth",
			want:   []series{{value: "1500m", labels: map[string]string{"queue": "orders"}}},
		},
		{
			name:   "every series without a selector",
			data:   map[string]string{"external.queue_depth": twoQueues},
			metric: "queue_depth",
			want: []series{
				{value: "30", labels: map[string]string{"queue": "orders"}},
				{value: "5", labels: map[string]string{"queue": "payments"}},
			},
		},
		{
			name:     "the selector picks the series whose labels match",
			data:     map[string]string{"external.queue_depth": twoQueues},
			metric:   "queue_depth",
			selector: "queue=payments",
			want:     []series{{value: "5", labels: map[string]string{"queue": "payments"}}},
		},
		{
			name:     "a selector that matches no series answers an empty list",
			data:     map[string]string{"external.queue_depth": twoQueues},
			metric:   "queue_depth",
			selector: "queue=refunds",
			want:     nil,
		},
		{
			name:     "a set-based selector",
			data:     map[string]string{"external.queue_depth": twoQueues},
			metric:   "queue_depth",
			selector: "queue in (orders,refunds)",
			want:     []series{{value: "30", labels: map[string]string{"queue": "orders"}}},
		},
		{
			name:   "a list is the series",
			data:   map[string]string{"external.queue_depth": `[{"value": "7", "labels": {"queue": "orders"}}]`},
			metric: "queue_depth",
			want:   []series{{value: "7", labels: map[string]string{"queue": "orders"}}},
		},
		{
			name:        "an unknown metric is NotFound",
			data:        map[string]string{"external.queue_depth": "30"},
			metric:      "queue_length",
			wantCode:    http.StatusNotFound,
			wantMessage: "queue_length",
		},
		{
			name:        "the error fault answers 500",
			data:        map[string]string{"external.queue_depth": "error"},
			metric:      "queue_depth",
			wantCode:    http.StatusInternalServerError,
			wantMessage: `fault "error" injected for external metric queue_depth`,
		},
		{
			name:        "the error fault keeps the values for later and answers errorCode",
			data:        map[string]string{"external.queue_depth": `{"value": "30", "fault": "error", "errorCode": 503}`},
			metric:      "queue_depth",
			wantCode:    http.StatusServiceUnavailable,
			wantMessage: "injected",
		},
		{
			name:   "the empty fault answers an empty list",
			data:   map[string]string{"external.queue_depth": `{"value": "30", "fault": "empty"}`},
			metric: "queue_depth",
			want:   nil,
		},
		{
			name:   "fault.external takes every external metric out",
			data:   map[string]string{"external.queue_depth": "30", "fault.external": `{"fault": "error", "errorCode": 503}`},
			metric: "queue_depth", wantCode: http.StatusServiceUnavailable,
		},
		{
			name:     "fault.external answers even an unknown metric",
			data:     map[string]string{"fault.external": "error"},
			metric:   "anything",
			wantCode: http.StatusInternalServerError,
		},
		{
			name:   "fault.external empty answers empty lists",
			data:   map[string]string{"external.queue_depth": "30", "fault.external": "empty"},
			metric: "queue_depth",
			want:   nil,
		},
		{
			name:        "an unreadable key answers 500 quoting the mistake",
			data:        map[string]string{"external.queue_depth": `{"value": "30", "falut": "error"}`},
			metric:      "queue_depth",
			wantCode:    http.StatusInternalServerError,
			wantMessage: `unknown field "falut"`,
		},
		{
			name:   "fault.custom leaves external metrics alone",
			data:   map[string]string{"external.queue_depth": "30", "fault.custom": "error"},
			metric: "queue_depth",
			want:   []series{{value: "30"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProvider(t, tc.data)
			selector := labels.Everything()
			if tc.selector != "" {
				selector = mustSelector(t, tc.selector)
			}
			list, err := p.GetExternalMetric(testContext(t, 10*time.Second), "default", selector,
				provider.ExternalMetricInfo{Metric: tc.metric})
			if tc.wantCode != 0 {
				checkStatus(t, err, tc.wantCode, tc.wantMessage)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(list.Items) != len(tc.want) {
				t.Fatalf("got %d items %+v, want %d", len(list.Items), list.Items, len(tc.want))
			}
			for i, item := range list.Items {
				want := tc.want[i]
				if item.MetricName != tc.metric {
					t.Errorf("item %d: metricName %q, want %q", i, item.MetricName, tc.metric)
				}
				if item.Value.String() != want.value {
					t.Errorf("item %d: value %s, want %s", i, item.Value.String(), want.value)
				}
				if !labels.Equals(item.MetricLabels, want.labels) {
					t.Errorf("item %d: labels %v, want %v", i, item.MetricLabels, want.labels)
				}
				if !item.Timestamp.Time.Equal(testNow) {
					t.Errorf("item %d: timestamp %v, want the clock's %v", i, item.Timestamp, testNow)
				}
			}
		})
	}
}

func TestHangFaultAnswersOnlyWhenTheRequestEnds(t *testing.T) {
	for _, data := range []map[string]string{
		{"external.queue_depth": `{"value": "30", "fault": "hang"}`},
		{"external.queue_depth": "30", "fault.external": "hang"},
	} {
		p, counter := newTestProvider(t, data)
		timeout := 100 * time.Millisecond
		start := time.Now() // before the deadline is set
		ctx := testContext(t, timeout)
		_, err := p.GetExternalMetric(ctx, "default", labels.Everything(), provider.ExternalMetricInfo{Metric: "queue_depth"})
		if elapsed := time.Since(start); elapsed < timeout {
			t.Errorf("%v: answered after %v, before the request's %v deadline", data, elapsed, timeout)
		}
		if !apierrors.IsTimeout(err) {
			t.Errorf("%v: got %v, want a time-out error", data, err)
		}
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("%v: the request's context did not end", data)
		}
		if got := counter.Snapshot(); len(got) != 1 || got[0].Result != ResultTimeout {
			t.Errorf("%v: counted %+v, want one timeout", data, got)
		}
	}
}

// checkStatus fails unless err is an API status error of code whose
// message contains message.
func checkStatus(t *testing.T, err error, code int32, message string) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("got %v, want a status error of code %d", err, code)
	}
	if got := status.Status().Code; got != code {
		t.Errorf("status code %d, want %d (%v)", got, code, err)
	}
	if !strings.Contains(err.Error(), message) {
		t.Errorf("error %q does not mention %q", err, message)
	}
}
