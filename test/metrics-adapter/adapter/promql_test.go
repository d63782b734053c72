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
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
)

func TestToSeries(t *testing.T) {
	tests := []struct {
		name    string
		value   model.Value
		want    []series
		wantErr string
	}{
		{
			name: "a vector is one series per sample, labeled without the metric name",
			value: model.Vector{
				{Metric: model.Metric{"__name__": "queue_depth", "queue": "orders"}, Value: 30},
				{Metric: model.Metric{"__name__": "queue_depth", "queue": "payments"}, Value: 2.5},
			},
			want: []series{{value: "30", labels: map[string]string{"queue": "orders"}}, {value: "2500m", labels: map[string]string{"queue": "payments"}}},
		},
		{name: "an aggregate has no labels", value: model.Vector{{Metric: model.Metric{}, Value: 7}}, want: []series{{value: "7"}}},
		{name: "an empty vector is no series", value: model.Vector{}, want: nil},
		{name: "a scalar is one series", value: &model.Scalar{Value: 0.0004}, want: []series{{value: "0"}}},
		{name: "values are rounded to milli-units", value: &model.Scalar{Value: 1.2345}, want: []series{{value: "1235m"}}},
		{name: "a huge value saturates", value: &model.Scalar{Value: 1e300}, want: []series{{value: fmt.Sprintf("%dm", int64(math.MaxInt64))}}},
		{name: "a huge negative value saturates", value: &model.Scalar{Value: -1e300}, want: []series{{value: fmt.Sprintf("%dm", int64(math.MinInt64))}}},
		{name: "NaN is refused", value: model.Vector{{Metric: model.Metric{"q": "a"}, Value: model.SampleValue(math.NaN())}}, wantErr: "NaN"},
		{name: "an infinity is refused", value: &model.Scalar{Value: model.SampleValue(math.Inf(1))}, wantErr: "+Inf"},
		{name: "a range vector is refused", value: model.Matrix{}, wantErr: "the result is a matrix"},
		{name: "a string is refused", value: &model.String{Value: "x"}, wantErr: "the result is a string"},
		{name: "no result is refused", value: nil, wantErr: "no result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := toSeries(tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i, s := range got {
				if s.Value.String() != tc.want[i].value || !labels.Equals(s.Labels, tc.want[i].labels) {
					t.Errorf("series %d: %s %v, want %s %v", i, s.Value.String(), s.Labels, tc.want[i].value, tc.want[i].labels)
				}
			}
		})
	}
}

func TestQueryError(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		clientGone  bool
		wantCode    int32
		wantMessage string
	}{
		{name: "an unreachable server is unavailable", err: errors.New("dial tcp 127.0.0.1:9090: connect: connection refused"), wantCode: http.StatusServiceUnavailable, wantMessage: "Prometheus is unreachable: dial tcp"},
		{name: "a query past its time-out is a time-out", err: fmt.Errorf("Post: %w", context.DeadlineExceeded), wantCode: http.StatusGatewayTimeout, wantMessage: "did not answer in time"},
		{name: "a refused query is a bad request", err: &promv1.Error{Type: promv1.ErrBadData, Msg: "parse error"}, wantCode: http.StatusBadRequest, wantMessage: "Prometheus answered bad_data: parse error"},
		{name: "Prometheus's own time-out is a time-out", err: &promv1.Error{Type: promv1.ErrTimeout, Msg: "query timed out"}, wantCode: http.StatusGatewayTimeout},
		{name: "a 5xx of Prometheus is unavailable", err: &promv1.Error{Type: promv1.ErrServer, Msg: "server error: 503"}, wantCode: http.StatusServiceUnavailable},
		{name: "an evaluation error is internal", err: &promv1.Error{Type: promv1.ErrExec, Msg: "too many samples"}, wantCode: http.StatusInternalServerError},
		{name: "a client that gave up is a time-out nobody reads", err: context.Canceled, clientGone: true, wantCode: http.StatusGatewayTimeout, wantMessage: "request ended"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.clientGone {
				cancel()
			}
			err := queryError(ctx, tc.err, `external metric m: query "up"`)
			checkStatus(t, err, tc.wantCode, tc.wantMessage)
			if !tc.clientGone && !strings.Contains(err.Error(), `query "up"`) {
				t.Errorf("%v does not name the query", err)
			}
			if tc.clientGone && !apierrors.IsTimeout(err) {
				t.Errorf("%v is not a time-out", err)
			}
		})
	}
}

// fakeQuerier answers every query with value and err, and records the
// queries and their evaluation times.
type fakeQuerier struct {
	value   model.Value
	err     error
	queries []string
	times   []time.Time
}

func (q *fakeQuerier) Query(_ context.Context, query string, ts time.Time, _ ...promv1.Option) (model.Value, promv1.Warnings, error) {
	q.queries = append(q.queries, query)
	q.times = append(q.times, ts)
	return q.value, nil, q.err
}

// fakeClients gives the fake of each URL.
type fakeClients map[string]*fakeQuerier

func (c fakeClients) Querier(url string) (Querier, error) {
	q, ok := c[url]
	if !ok {
		return nil, fmt.Errorf("no Prometheus at %q", url)
	}
	return q, nil
}
