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

package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	externalapi "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
)

func externalValue(ts time.Time, milli int64) externalapi.ExternalMetricValue {
	return externalapi.ExternalMetricValue{MetricName: "queue_depth", Timestamp: metav1.Time{Time: ts}, Value: *resource.NewMilliQuantity(milli, resource.DecimalSI)}
}

func hugeExternalValue(ts time.Time, value string) externalapi.ExternalMetricValue {
	return externalapi.ExternalMetricValue{MetricName: "queue_depth", Timestamp: metav1.Time{Time: ts}, Value: resource.MustParse(value)}
}

func TestGetExternalMetric(t *testing.T) {
	selector := labels.SelectorFromSet(labels.Set{"queue": "jobs"})
	tests := []struct {
		name      string
		items     []externalapi.ExternalMetricValue
		err       error
		hang      bool
		want      []int64
		wantTime  time.Time
		wantErr   string
		wantErrIs error
		wantErrOK func(error) bool
	}{
		{
			name:     "returns every series and the oldest time",
			items:    []externalapi.ExternalMetricValue{externalValue(t0, 3000), externalValue(t0.Add(-time.Minute), 5600)},
			want:     []int64{3000, 5600},
			wantTime: t0.Add(-time.Minute),
		},
		{
			name: "huge series saturate at the int64 milli bounds instead of reading as 0 or -1000",
			items: []externalapi.ExternalMetricValue{
				hugeExternalValue(t0, "1e30"), hugeExternalValue(t0, "1e16"), hugeExternalValue(t0, "9223372036854775807"), hugeExternalValue(t0, "-1e30"),
			},
			want:     []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MinInt64},
			wantTime: t0,
		},
		{
			name:      "an empty list is an error wrapping ErrNoMetrics",
			wantErr:   "no metrics returned from external metrics API",
			wantErrIs: ErrNoMetrics,
		},
		{
			name:      "an unavailable API is an error the caller can classify",
			err:       apierrors.NewServiceUnavailable("the server is currently unable to handle the request"),
			wantErr:   "unable to fetch metrics from external metrics API",
			wantErrOK: apierrors.IsServiceUnavailable,
		},
		{
			name:      "an unregistered API is an error the caller can classify",
			err:       apierrors.NewNotFound(schema.GroupResource{Group: "external.metrics.k8s.io", Resource: "queue_depth"}, ""),
			wantErr:   "unable to fetch metrics from external metrics API",
			wantErrOK: apierrors.IsNotFound,
		},
		{
			name:      "a hanging API times out",
			hang:      true,
			wantErr:   "no answer within 50ms",
			wantErrIs: context.DeadlineExceeded,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakes()
			if tc.hang {
				f.external.AddReactor("list", "*", hang(t))
			} else {
				f.external.AddReactor("list", "*", answer(&externalapi.ExternalMetricValueList{Items: tc.items}, tc.err))
			}
			start := time.Now()
			got, ts, err := f.client(t, 50*time.Millisecond).GetExternalMetric(testContext(t), "queue_depth", testNamespace, selector, "")
			if tc.hang && time.Since(start) > 5*time.Second {
				t.Errorf("a hanging adapter held the caller for %v", time.Since(start))
			}
			if tc.wantErrOK != nil && !tc.wantErrOK(err) {
				t.Errorf("error %v is not of the expected class", err)
			}
			if checkErr(t, err, tc.wantErr, tc.wantErrIs) {
				return
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || !ts.Equal(tc.wantTime) {
				t.Errorf("got %v at %v, want %v at %v", got, ts, tc.want, tc.wantTime)
			}
			list := f.external.Actions()[0].(clienttesting.ListAction)
			if list.GetResource().Resource != "queue_depth" || list.GetNamespace() != testNamespace || list.GetListRestrictions().Labels.String() != selector.String() {
				t.Errorf("listed %s in %s with %q", list.GetResource().Resource, list.GetNamespace(), list.GetListRestrictions().Labels)
			}
		})
	}
}

func TestFetchIsAbandonedWhenTheCallerGivesUp(t *testing.T) {
	f := newFakes()
	f.external.AddReactor("list", "*", hang(t))
	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	_, _, err := f.client(t, time.Hour).GetExternalMetric(ctx, "queue_depth", testNamespace, labels.Everything(), "")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want an error wrapping context.Canceled", err)
	}
}
