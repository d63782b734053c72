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

package calculator

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

var queueSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "jobs"}}

var invalidSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
	{Key: "queue", Operator: "Near", Values: []string{"jobs"}},
}}

func TestGetExternalMetricReplicas(t *testing.T) {
	tests := []struct {
		name      string
		current   int32
		target    int64
		pods      []*corev1.Pod
		values    []int64
		selector  *metav1.LabelSelector // queueSelector when nil
		fetchErr  error
		want      Result
		wantErr   string
		wantErrIs error
	}{
		{
			name:    "external value above target scales up",
			current: 1, target: 4400, values: []int64{8600},
			pods: pods(1),
			want: result(2, 0, 8600),
		},
		{
			name:    "external value sums every series",
			current: 1, target: 4400, values: []int64{3000, 5600},
			pods: pods(1),
			want: result(2, 0, 8600),
		},
		{
			name:    "external value below target scales down",
			current: 5, target: 14334, values: []int64{8600},
			pods: pods(5),
			want: result(3, 0, 8600),
		},
		{
			name:    "external value tolerance keeps current replicas",
			current: 2, target: 4400, values: []int64{4500},
			pods: pods(2),
			want: result(2, 0, 4500),
		},
		{
			name:    "external value scales only the ready pods",
			current: 3, target: 4400, values: []int64{8600},
			pods: join(pods(1, neverReady), pods(1), pods(1, neverReady)),
			want: result(2, 0, 8600),
		},
		{
			name:    "external value from zero replicas proposes the ratio rounded up",
			current: 0, target: 4400, values: []int64{8600},
			want: result(2, 0, 8600),
		},
		{
			name:    "any external demand brings back a replica from zero",
			current: 0, target: 4400, values: []int64{100},
			want: result(1, 0, 100),
		},
		{
			name:    "external value at zero replicas without demand stays at zero",
			current: 0, target: 4400, values: []int64{0},
			want: result(0, 0, 0),
		},
		{
			name:    "external value sum saturates instead of overflowing",
			current: 1, target: 1, values: []int64{math.MaxInt64, math.MaxInt64},
			pods: pods(1),
			want: result(math.MaxInt32, 0, math.MaxInt64),
		},
		{
			name:    "external value sum stops at MaxInt64: later series no longer count, as upstream",
			current: 1, target: 1, values: []int64{math.MaxInt64, 1, -5},
			pods: pods(1),
			want: result(math.MaxInt32, 0, math.MaxInt64),
		},
		{
			name:    "a negative external value sum proposes a negative count, as upstream",
			current: 4, target: 1000, values: []int64{-500},
			pods: pods(4),
			want: result(-2, 0, -500),
		},
		{
			name:    "external value with no pods matched is an error when scaling",
			current: 2, target: 4400, values: []int64{8600},
			wantErr: "no pods returned by selector",
		},
		{
			name:    "an invalid metric selector is an error",
			current: 1, target: 4400, values: []int64{8600},
			pods:     pods(1),
			selector: invalidSelector,
			wantErr:  "invalid selector for external metric queue_depth",
		},
		{
			name:    "external metric failure wraps the cause so callers can tell",
			current: 1, target: 4400,
			pods:      pods(1),
			fetchErr:  metrics.ErrNoMetrics,
			wantErr:   "unable to get external metric test-namespace/queue_depth",
			wantErrIs: metrics.ErrNoMetrics,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			selector := tc.selector
			if selector == nil {
				selector = queueSelector
			}
			fake := metricstest.NewClient().SetExternal("queue_depth", metricstest.ExternalAnswer{Values: tc.values, Timestamp: metricTime, Err: tc.fetchErr})
			calc := newTestCalculator(t, tc.pods, fake)
			got, err := calc.GetExternalMetricReplicas(testContext(t), tc.current, tc.target, "queue_depth", defaultTolerances, testNamespace, selector, podSelector, "")
			check(t, got, err, tc.want, tc.wantErr, tc.wantErrIs)
		})
	}
}

func TestGetExternalPerPodMetricReplicas(t *testing.T) {
	tests := []struct {
		name           string
		statusReplicas int32
		target         int64
		values         []int64
		selector       *metav1.LabelSelector // queueSelector when nil
		fetchErr       error
		want           Result
		wantErr        string
		wantErrIs      error
	}{
		{
			name:           "external average value above target scales up",
			statusReplicas: 3, target: 2150, values: []int64{8600},
			want: result(4, 0, 2867),
		},
		{
			name:           "external average value sums every series",
			statusReplicas: 3, target: 2150, values: []int64{4300, 4300},
			want: result(4, 0, 2867),
		},
		{
			name:           "external average value below target scales down",
			statusReplicas: 5, target: 2867, values: []int64{8600},
			want: result(3, 0, 1720),
		},
		{
			name:           "external average value tolerance keeps current replicas",
			statusReplicas: 4, target: 2150, values: []int64{8600},
			want: result(4, 0, 2150),
		},
		{
			name:           "per-pod external at zero replicas does not divide by zero",
			statusReplicas: 0, target: 2150, values: []int64{8600},
			want: result(4, 0, 8600),
		},
		{
			name:           "per-pod external at zero replicas: tolerance never holds back the first replica",
			statusReplicas: 0, target: 2150, values: []int64{2200},
			want: result(2, 0, 2200),
		},
		{
			name:           "per-pod external at zero replicas without demand stays at zero",
			statusReplicas: 0, target: 2150, values: []int64{0},
			want: result(0, 0, 0),
		},
		{
			name:           "per-pod external replica count stops at MaxInt32",
			statusReplicas: 1, target: 1, values: []int64{math.MaxInt64},
			want: result(math.MaxInt32, 0, math.MaxInt64),
		},
		{
			name:           "per-pod external usage at the int64 limit is reported as is",
			statusReplicas: 1, target: math.MaxInt64, values: []int64{math.MaxInt64},
			want: result(1, 0, math.MaxInt64),
		},
		{
			name:           "a negative per-pod external value reads as overflow and asks for the most replicas, as upstream",
			statusReplicas: 3, target: 2150, values: []int64{-100},
			want: result(math.MaxInt32, 0, math.MaxInt64),
		},
		{
			name:           "per-pod external series summing below zero midway read as overflow, as upstream",
			statusReplicas: 3, target: 2150, values: []int64{1000, -2000, 5000},
			want: result(math.MaxInt32, 0, math.MaxInt64),
		},
		{
			name:           "per-pod external negative series within a positive sum count",
			statusReplicas: 3, target: 2150, values: []int64{9600, -1000},
			want: result(4, 0, 2867),
		},
		{
			name:           "per-pod external usage of MaxInt64 over 2 replicas is reported as MaxInt64, as upstream",
			statusReplicas: 2, target: math.MaxInt64, values: []int64{math.MaxInt64},
			want: result(1, 0, math.MaxInt64),
		},
		{
			name:           "per-pod external with an invalid metric selector is an error",
			statusReplicas: 1, target: 2150, values: []int64{8600},
			selector: invalidSelector,
			wantErr:  "invalid selector for external metric queue_depth",
		},
		{
			name:           "per-pod external failure wraps the cause",
			statusReplicas: 3, target: 2150,
			fetchErr:  errAdapter,
			wantErr:   "unable to get external metric test-namespace/queue_depth",
			wantErrIs: errAdapter,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			selector := tc.selector
			if selector == nil {
				selector = queueSelector
			}
			fake := metricstest.NewClient().SetExternal("queue_depth", metricstest.ExternalAnswer{Values: tc.values, Timestamp: metricTime, Err: tc.fetchErr})
			calc := newTestCalculator(t, nil, fake)
			got, err := calc.GetExternalPerPodMetricReplicas(testContext(t), tc.statusReplicas, tc.target, "queue_depth", defaultTolerances, testNamespace, selector, "")
			check(t, got, err, tc.want, tc.wantErr, tc.wantErrIs)
		})
	}
}
