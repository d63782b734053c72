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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

var deployment = &autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", APIVersion: "apps/v1", Name: "web"}

func TestGetMetricReplicas(t *testing.T) {
	tests := []struct {
		name      string
		current   int32
		target    int64
		pods      []*corev1.Pod
		readings  metrics.PodMetricsInfo
		unset     bool // no answer configured for the metric
		fetchErr  error
		want      Result
		wantErr   string
		wantErrIs error
	}{
		{
			name:    "pods metric above target scales up",
			current: 3, target: 15000,
			pods:     pods(3),
			readings: readings(20000, 10000, 30000),
			want:     result(4, 0, 20000),
		},
		{
			name:    "saturated pods metric readings ask for the most replicas",
			current: 3, target: 15000,
			pods:     pods(3),
			readings: readings(math.MaxInt64, math.MaxInt64, 10000),
			want:     result(math.MaxInt32, 0, math.MaxInt64/3),
		},
		{
			name:    "pods metric below target scales down",
			current: 5, target: 20000,
			pods:     pods(5),
			readings: readings(12000, 12000, 12000, 12000, 12000),
			want:     result(3, 0, 12000),
		},
		{
			name:    "pods metric tolerance keeps current replicas",
			current: 3, target: 15000,
			pods:     pods(3),
			readings: readings(15500, 15000, 14500),
			want:     result(3, 0, 15000),
		},
		{
			name:    "pods metric readings of unready and starting pods count as they are",
			current: 3, target: 15000,
			pods:     join(pods(1, hotCPU), pods(1), pods(1, neverReady)),
			readings: readings(50000, 10000, 30000),
			want:     result(6, 0, 30000),
		},
		{
			name:    "pods metric counts a pending pod at 0 on scale-up",
			current: 3, target: 15000,
			pods:     join(pods(2), pods(1, phase(corev1.PodPending))),
			readings: readings(30000, 30000),
			want:     result(4, 0, 30000),
		},
		{
			name:    "pods metric missing pods count as the target on scale-down",
			current: 4, target: 10000,
			pods:     pods(4),
			readings: readings(5000, 5000, 5000),
			want:     result(3, 0, 5000),
		},
		{
			name:    "pods metric missing pods count at 0 on scale-up",
			current: 4, target: 10000,
			pods:     pods(4),
			readings: readings(30000, 30000, 30000),
			want:     result(9, 0, 30000),
		},
		{
			name:    "pods metric readings of pods not listed yet count in the average, as upstream",
			current: 2, target: 10000,
			pods:     pods(2),
			readings: withReading(readings(10000, 10000), "stranger", 40000),
			want:     result(4, 0, 20000),
		},
		{
			name:    "pods metric failure is an error wrapping the cause",
			current: 3, target: 15000,
			pods:      pods(3),
			fetchErr:  errAdapter,
			wantErr:   "unable to get metric qps",
			wantErrIs: errAdapter,
		},
		{
			name:    "pods metric the adapter has nothing for wraps ErrNoMetrics",
			current: 3, target: 15000,
			pods:      pods(3),
			unset:     true,
			wantErr:   "unable to get metric qps",
			wantErrIs: metrics.ErrNoMetrics,
		},
		{
			name:    "pods metric with every pod pending is an error",
			current: 2, target: 15000,
			pods:     pods(2, phase(corev1.PodPending)),
			readings: readings(30000, 30000),
			wantErr:  "did not receive metrics for targeted pods",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := metricstest.NewClient()
			if !tc.unset {
				fake.SetPods("qps", metricstest.PodsAnswer{Metrics: tc.readings, Timestamp: metricTime, Err: tc.fetchErr})
			}
			calc := newTestCalculator(t, tc.pods, fake)
			got, err := calc.GetMetricReplicas(testContext(t), tc.current, tc.target, "qps", defaultTolerances, testNamespace, podSelector, nil, "")
			check(t, got, err, tc.want, tc.wantErr, tc.wantErrIs)
		})
	}
}

func TestGetObjectMetricReplicas(t *testing.T) {
	tests := []struct {
		name      string
		current   int32
		target    int64
		pods      []*corev1.Pod
		usage     int64
		fetchErr  error
		want      Result
		wantErr   string
		wantErrIs error
	}{
		{
			name:    "object value above target scales up",
			current: 3, target: 15000, usage: 20000,
			pods: pods(3),
			want: result(4, 0, 20000),
		},
		{
			name:    "object value below target scales down",
			current: 5, target: 20000, usage: 12000,
			pods: pods(5),
			want: result(3, 0, 12000),
		},
		{
			name:    "object value tolerance keeps current replicas",
			current: 3, target: 15000, usage: 15500,
			pods: pods(3),
			want: result(3, 0, 15500),
		},
		{
			name:    "object value scales only the ready pods",
			current: 3, target: 10000, usage: 50000,
			pods: join(pods(1, neverReady), pods(1), pods(1, neverReady)),
			want: result(5, 0, 50000),
		},
		{
			name:    "object value counts pending and failed pods as not ready",
			current: 3, target: 10000, usage: 50000,
			pods: join(pods(1), pods(1, phase(corev1.PodPending)), pods(1, phase(corev1.PodFailed))),
			want: result(5, 0, 50000),
		},
		{
			name:    "object value with no ready pods proposes zero, as upstream",
			current: 3, target: 10000, usage: 50000,
			pods: pods(3, neverReady),
			want: result(0, 0, 50000),
		},
		{
			name:    "object value from zero replicas proposes the ratio rounded up",
			current: 0, target: 10000, usage: 25000,
			want: result(3, 0, 25000),
		},
		{
			name:    "tolerance never holds back the first replica from zero",
			current: 0, target: 10000, usage: 10000,
			want: result(1, 0, 10000),
		},
		{
			name:    "tolerance never holds back a proposal from zero just above target",
			current: 0, target: 10000, usage: 10500,
			want: result(2, 0, 10500),
		},
		{
			name:    "object value at zero replicas without demand stays at zero",
			current: 0, target: 10000, usage: 0,
			want: result(0, 0, 0),
		},
		{
			name:    "object value from zero with a huge ratio proposes at most MaxInt32",
			current: 0, target: 1, usage: math.MaxInt64,
			want: result(math.MaxInt32, 0, math.MaxInt64),
		},
		{
			name:    "object value proposals stop at MaxInt32",
			current: 3, target: 1, usage: math.MaxInt64,
			pods: pods(3),
			want: result(math.MaxInt32, 0, math.MaxInt64),
		},
		{
			name:    "object value with no pods matched is an error when scaling",
			current: 3, target: 10000, usage: 50000,
			wantErr: "unable to calculate ready pods: no pods returned by selector",
		},
		{
			name:    "object metric failure names the object and wraps the cause",
			current: 3, target: 10000,
			pods:      pods(3),
			fetchErr:  errAdapter,
			wantErr:   "unable to get metric qps on Deployment test-namespace/web: adapter unavailable",
			wantErrIs: errAdapter,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := metricstest.NewClient().SetObject("qps", metricstest.ObjectAnswer{Value: tc.usage, Timestamp: metricTime, Err: tc.fetchErr})
			calc := newTestCalculator(t, tc.pods, fake)
			got, err := calc.GetObjectMetricReplicas(testContext(t), tc.current, tc.target, "qps", defaultTolerances, testNamespace, deployment, podSelector, nil, "")
			check(t, got, err, tc.want, tc.wantErr, tc.wantErrIs)
		})
	}
}

func TestGetObjectPerPodMetricReplicas(t *testing.T) {
	tests := []struct {
		name           string
		statusReplicas int32
		target         int64
		usage          int64
		fetchErr       error
		want           Result
		wantErr        string
		wantErrIs      error
	}{
		{
			name:           "object average value above target scales up",
			statusReplicas: 3, target: 5000, usage: 20000,
			want: result(4, 0, 6667),
		},
		{
			name:           "object average value below target scales down",
			statusReplicas: 5, target: 2000, usage: 6000,
			want: result(3, 0, 1200),
		},
		{
			name:           "object average value tolerance keeps current replicas",
			statusReplicas: 3, target: 2000, usage: 6100,
			want: result(3, 0, 2034),
		},
		{
			name:           "object average value at zero replicas does not divide by zero",
			statusReplicas: 0, target: 2000, usage: 6000,
			want: result(3, 0, 6000),
		},
		{
			name:           "object average value at zero replicas: tolerance never holds back the first replica",
			statusReplicas: 0, target: 2000, usage: 2000,
			want: result(1, 0, 2000),
		},
		{
			name:           "object average value at zero replicas without demand stays at zero",
			statusReplicas: 0, target: 2000, usage: 0,
			want: result(0, 0, 0),
		},
		{
			name:           "object average value failure is an error wrapping the cause",
			statusReplicas: 3, target: 2000,
			fetchErr:  errAdapter,
			wantErr:   "unable to get metric qps on Deployment test-namespace/web: adapter unavailable",
			wantErrIs: errAdapter,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := metricstest.NewClient().SetObject("qps", metricstest.ObjectAnswer{Value: tc.usage, Timestamp: metricTime, Err: tc.fetchErr})
			// No pods: per-pod targets go by the workload's replica count.
			calc := newTestCalculator(t, nil, fake)
			got, err := calc.GetObjectPerPodMetricReplicas(testContext(t), tc.statusReplicas, tc.target, "qps", defaultTolerances, testNamespace, deployment, nil, "")
			check(t, got, err, tc.want, tc.wantErr, tc.wantErrIs)
		})
	}
}
