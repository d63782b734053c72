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
	"time"

	corev1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// withReading adds a reading for a pod by name.
func withReading(r metrics.PodMetricsInfo, name string, value int64) metrics.PodMetricsInfo {
	r[name] = metrics.PodMetric{Timestamp: metricTime, Window: time.Minute, Value: value}
	return r
}

func TestGetResourceReplicas(t *testing.T) {
	outsider := newPod(0)
	outsider.Name, outsider.Labels = "other-0", map[string]string{"app": "other"}
	elsewhere := newPod(3)
	elsewhere.Namespace = "elsewhere"

	tests := []struct {
		name       string
		current    int32
		target     int32
		resource   corev1.ResourceName // CPU when empty
		container  string
		tolerances *Tolerances
		pods       []*corev1.Pod
		readings   metrics.PodMetricsInfo
		fetchErr   error
		modify     func(*Options)
		want       Result
		wantErr    string
		wantErrIs  error
	}{
		{
			name:    "scale up when utilization is above target",
			current: 3, target: 30,
			pods:     pods(3),
			readings: readings(300, 500, 700),
			want:     result(5, 50, 500),
		},
		{
			name:    "saturated readings sum to a saturated utilization and ask for the most replicas",
			current: 3, target: 50,
			pods:     pods(3),
			readings: readings(math.MaxInt64, math.MaxInt64, 100),
			want:     result(math.MaxInt32, math.MaxInt32, math.MaxInt64/3),
		},
		{
			name:    "a reading too large for utilization x 100 asks for the most replicas",
			current: 2, target: 50,
			pods:     pods(2),
			readings: readings(math.MaxInt64/50, 500),
			want:     result(math.MaxInt32, math.MaxInt32, (math.MaxInt64/50+500)/2),
		},
		{
			name:    "a huge request (1e16 cores) saturates and makes utilization tiny, a scale-down",
			current: 2, target: 50,
			pods:     pods(2, containers("app", "1e16")),
			readings: readings(500, 500),
			want:     result(0, 0, 500),
		},
		{
			name:    "missing pods on a scale-down count at a saturated request without wrapping",
			current: 3, target: 200,
			pods:     join(pods(2), pods(1, containers("app", "1e16"))),
			readings: readings(100, 100),
			want:     result(2, 10, 100),
		},
		{
			name:    "scale down when utilization is below target",
			current: 5, target: 50,
			pods:     pods(5),
			readings: readings(100, 300, 500, 250, 250),
			want:     result(3, 28, 280),
		},
		{
			name:    "tolerance keeps current replicas",
			current: 3, target: 50,
			pods:     pods(3),
			readings: readings(520, 540, 530),
			want:     result(3, 53, 530),
		},
		{
			name:    "a wide scale-up tolerance keeps current replicas above target",
			current: 3, target: 50,
			tolerances: &Tolerances{ScaleDown: 0.1, ScaleUp: 0.5},
			pods:       pods(3),
			readings:   readings(700, 700, 700),
			want:       result(3, 70, 700),
		},
		{
			name:    "a narrow scale-down tolerance scales down what the default would keep",
			current: 20, target: 40,
			tolerances: &Tolerances{ScaleDown: 0.01, ScaleUp: 0.1},
			pods:       pods(20),
			readings:   readings(380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380, 380),
			want:       result(19, 38, 380),
		},
		{
			name:    "requests are summed over all containers",
			current: 2, target: 50,
			pods:     pods(2, containers("app", "500m", "helper", "500m")),
			readings: readings(1000, 1000),
			want:     result(4, 100, 1000),
		},
		{
			name:    "scale up with unready pods counts them at 0%",
			current: 3, target: 30,
			pods:     join(pods(1, neverReady), pods(2)),
			readings: readings(300, 500, 700),
			want:     result(4, 60, 600),
		},
		{
			name:    "unready pods that would turn a scale-up around keep current replicas",
			current: 3, target: 30,
			pods:     join(pods(1), pods(2, neverReady)),
			readings: readings(400, 500, 700),
			want:     result(3, 40, 400),
		},
		{
			name:    "unready pods are left out of a scale-down",
			current: 5, target: 50,
			pods:     join(pods(3), pods(2, neverReady)),
			readings: readings(100, 300, 500, 250, 250),
			want:     result(2, 30, 300),
		},
		{
			name:    "starting pods ready for less than a metric window count at 0% on scale-up",
			current: 3, target: 30,
			pods:     join(pods(1, hotCPU), pods(2)),
			readings: readings(300, 500, 700),
			want:     result(4, 60, 600),
		},
		{
			name:    "starting pods ready for a whole metric window count as they are",
			current: 3, target: 30,
			pods:     join(pods(1, warmCPU), pods(2)),
			readings: readings(300, 500, 700),
			want:     result(5, 50, 500),
		},
		{
			name:    "a starting pod counts once the clock passes the initialization period",
			current: 3, target: 30,
			pods:     join(pods(1, hotCPU), pods(2)),
			readings: readings(300, 500, 700),
			modify:   func(o *Options) { o.Clock = testingclock.NewFakePassiveClock(now.Add(3 * time.Minute)) },
			want:     result(5, 50, 500),
		},
		{
			name:    "an unready pod that was ready once counts as it is after initialization",
			current: 3, target: 30,
			pods:     join(pods(1, unreadyAfterServing), pods(2)),
			readings: readings(300, 500, 700),
			want:     result(5, 50, 500),
		},
		{
			name:    "a pod without a Ready condition is held back for CPU",
			current: 3, target: 30,
			pods:     join(pods(1, noReadyCondition), pods(2)),
			readings: readings(300, 500, 700),
			want:     result(4, 60, 600),
		},
		{
			name:    "a pod without a start time is held back for CPU",
			current: 3, target: 30,
			pods:     join(pods(1, noStartTime), pods(2)),
			readings: readings(300, 500, 700),
			want:     result(4, 60, 600),
		},
		{
			name:    "readiness does not hold back memory readings",
			current: 3, target: 30,
			resource: corev1.ResourceMemory,
			pods:     join(pods(1, neverReady), pods(2)),
			readings: readings(300, 500, 700),
			want:     result(5, 50, 500),
		},
		{
			name:    "failed pods are ignored",
			current: 2, target: 30,
			pods:     join(pods(2), pods(2, phase(corev1.PodFailed), neverReady)),
			readings: readings(500, 700),
			want:     result(4, 60, 600),
		},
		{
			name:    "pods being deleted are ignored",
			current: 2, target: 30,
			pods:     join(pods(2), pods(2, deleting)),
			readings: readings(500, 700),
			want:     result(4, 60, 600),
		},
		{
			name:    "pods being deleted are ignored even with readings",
			current: 2, target: 30,
			pods:     join(pods(2), pods(2, deleting)),
			readings: readings(500, 700, 0, 0),
			want:     result(4, 60, 600),
		},
		{
			name:    "pending pods are left out of a scale-down",
			current: 5, target: 50,
			pods:     join(pods(1), pods(4, phase(corev1.PodPending), neverReady)),
			readings: readings(100),
			want:     result(1, 10, 100),
		},
		{
			name:    "pending pods count at 0% on scale-up",
			current: 3, target: 50,
			pods:     join(pods(2), pods(1, phase(corev1.PodPending))),
			readings: readings(900, 900),
			want:     result(4, 90, 900),
		},
		{
			name:    "missing metrics count as 100% on scale-down",
			current: 4, target: 50,
			pods:     pods(4),
			readings: readings(100, 100, 100),
			want:     result(3, 10, 100),
		},
		{
			name:    "missing metrics count as 0% on scale-up",
			current: 4, target: 50,
			pods:     pods(4),
			readings: readings(900, 900, 900),
			want:     result(6, 90, 900),
		},
		{
			name:    "missing metrics count at a target above 100% on scale-down",
			current: 4, target: 200,
			pods:     pods(4),
			readings: readings(1000, 1000, 1000),
			want:     result(3, 100, 1000),
		},
		{
			name:    "missing metrics that turn a scale-down around keep current replicas",
			current: 4, target: 50,
			pods:     pods(4),
			readings: readings(450, 450, 450),
			want:     result(4, 45, 450),
		},
		{
			name:    "missing metrics that bring the ratio within tolerance keep current replicas",
			current: 4, target: 80,
			pods:     pods(4),
			readings: readings(700, 700, 700),
			want:     result(4, 70, 700),
		},
		{
			name:    "readings right on target with missing metrics keep current replicas",
			current: 4, target: 50,
			pods:     pods(4),
			readings: readings(500, 500, 500),
			want:     result(4, 50, 500),
		},
		{
			name:    "more pods than replicas cannot turn a scale-down into growth",
			current: 2, target: 50,
			pods:     pods(4),
			readings: readings(100, 100, 100),
			want:     result(2, 10, 100),
		},
		{
			name:    "scale up with unready and missing pods counts both at 0%",
			current: 4, target: 30,
			pods:     join(pods(1, neverReady), pods(3)),
			readings: readings(1000, 1000, 1000),
			want:     result(7, 100, 1000),
		},
		{
			name:    "readings of unknown pods are left out of utilization",
			current: 3, target: 30,
			pods:     pods(3),
			readings: withReading(readings(300, 500, 700), "stranger", 5000),
			want:     result(5, 50, 500),
		},
		{
			name:    "pods outside the selector or namespace are not counted",
			current: 3, target: 30,
			pods:     append(pods(3), outsider, elsewhere),
			readings: readings(300, 500, 700),
			want:     result(5, 50, 500),
		},
		{
			name:    "a named container uses only that container's requests",
			current: 3, target: 25, container: "app",
			pods:     pods(3, containers("app", "1", "helper", "500m")),
			readings: readings(500, 500, 500),
			want:     result(6, 50, 500),
		},
		{
			name:    "sidecar init container requests are summed",
			current: 2, target: 50,
			pods:     pods(2, containers("app", "500m"), sidecar("proxy", "500m"), initContainer("setup", "2")),
			readings: readings(1000, 1000),
			want:     result(4, 100, 1000),
		},
		{
			name:    "plain init containers need no request",
			current: 2, target: 50,
			pods:     pods(2, initContainer("setup", "")),
			readings: readings(1000, 1000),
			want:     result(4, 100, 1000),
		},
		{
			name:    "a sidecar can be the named container",
			current: 2, target: 50, container: "proxy",
			pods:     pods(2, sidecar("proxy", "500m")),
			readings: readings(500, 500),
			want:     result(4, 100, 500),
		},
		{
			name:    "pod-level requests stand for the containers'",
			current: 2, target: 25,
			pods:     pods(2, podLevelCPU("2")),
			readings: readings(1000, 1000),
			want:     result(4, 50, 1000),
		},
		{
			name:    "a named container takes precedence over pod-level requests",
			current: 2, target: 25, container: "app",
			pods:     pods(2, podLevelCPU("2")),
			readings: readings(1000, 1000),
			want:     result(8, 100, 1000),
		},
		{
			name:    "pod-level requests are not used with pod-level resources off",
			current: 2, target: 25,
			pods:     pods(2, podLevelCPU("2")),
			readings: readings(1000, 1000),
			modify:   func(o *Options) { o.IgnorePodLevelResources = true },
			want:     result(8, 100, 1000),
		},
		{
			name:    "pod-level requests without the resource are an error",
			current: 1, target: 50, resource: corev1.ResourceMemory,
			pods:     pods(1, containers("app", "1"), podLevelCPU("2")),
			readings: readings(1000),
			wantErr:  "missing pod-level request for memory in Pod web-0",
		},
		{
			name:    "a container without the request is an error",
			current: 1, target: 50,
			pods:     pods(1, containers("app", "")),
			readings: readings(1000),
			wantErr:  "missing request for cpu in container app of Pod web-0",
		},
		{
			name:    "a sidecar without the request is an error",
			current: 1, target: 50,
			pods:     pods(1, sidecar("proxy", "")),
			readings: readings(1000),
			wantErr:  "missing request for cpu in container proxy of Pod web-0",
		},
		{
			name:    "a named container absent from the pod is an error",
			current: 1, target: 50, container: "nope",
			pods:     pods(1),
			readings: readings(1000),
			wantErr:  "container nope not found in Pod web-0",
		},
		{
			name:    "a metrics API failure is an error wrapping the cause",
			current: 2, target: 50,
			pods:      pods(2),
			fetchErr:  errAdapter,
			wantErr:   "unable to get metrics for resource cpu",
			wantErrIs: errAdapter,
		},
		{
			name:    "no pods matched is an error",
			current: 2, target: 50,
			readings: readings(500),
			wantErr:  "no pods returned by selector",
		},
		{
			name:    "all pods unready is an error",
			current: 3, target: 50,
			pods:     pods(3, neverReady),
			readings: readings(500, 500, 500),
			wantErr:  "did not receive metrics for targeted pods",
		},
		{
			name:    "readings only of unknown pods are an error",
			current: 1, target: 50,
			pods:     pods(1),
			readings: withReading(metrics.PodMetricsInfo{}, "stranger", 500),
			wantErr:  "no metrics returned matched known pods",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.resource
			if res == "" {
				res = corev1.ResourceCPU
			}
			fake := metricstest.NewClient().SetResource(res, metricstest.PodsAnswer{Metrics: tc.readings, Timestamp: metricTime, Err: tc.fetchErr})
			var modify []func(*Options)
			if tc.modify != nil {
				modify = append(modify, tc.modify)
			}
			calc := newTestCalculator(t, tc.pods, fake, modify...)
			got, err := calc.GetResourceReplicas(testContext(t), tc.current, tc.target, res, tolerancesOr(tc.tolerances), testNamespace, podSelector, tc.container)
			check(t, got, err, tc.want, tc.wantErr, tc.wantErrIs)
		})
	}
}

func TestGetRawResourceReplicas(t *testing.T) {
	tests := []struct {
		name      string
		current   int32
		target    int64
		resource  corev1.ResourceName // CPU when empty
		pods      []*corev1.Pod
		readings  metrics.PodMetricsInfo
		fetchErr  error
		want      Result
		wantErr   string
		wantErrIs error
	}{
		{
			name:    "average value above target scales up",
			current: 3, target: 1500,
			pods:     pods(3),
			readings: readings(2000, 3000, 4000),
			want:     result(6, 0, 3000),
		},
		{
			name:    "saturated average values ask for the most replicas",
			current: 3, target: 1500,
			pods:     pods(3),
			readings: readings(math.MaxInt64, math.MaxInt64, math.MaxInt64),
			want:     result(math.MaxInt32, 0, math.MaxInt64/3),
		},
		{
			name:    "average value tolerance keeps current replicas",
			current: 3, target: 1000,
			pods:     pods(3),
			readings: readings(1050, 1000, 950),
			want:     result(3, 0, 1000),
		},
		{
			name:    "average value missing metrics count as the target on scale-down",
			current: 4, target: 1000,
			pods:     pods(4),
			readings: readings(500, 500, 500),
			want:     result(3, 0, 500),
		},
		{
			name:    "average value on CPU leaves unready pods out of a scale-down",
			current: 3, target: 1000,
			pods:     join(pods(2), pods(1, neverReady)),
			readings: readings(200, 400, 3000),
			want:     result(1, 0, 300),
		},
		{
			name:    "average value on memory counts unready pods as they are",
			current: 3, target: 1000, resource: corev1.ResourceMemory,
			pods:     join(pods(2), pods(1, neverReady)),
			readings: readings(200, 400, 3000),
			want:     result(4, 0, 1200),
		},
		{
			name:    "average value counts a pending pod at 0 on scale-up",
			current: 3, target: 1000,
			pods:     join(pods(2), pods(1, phase(corev1.PodPending))),
			readings: readings(3000, 3000),
			want:     result(6, 0, 3000),
		},
		{
			name:    "average value metrics API failure is an error wrapping the cause",
			current: 3, target: 1000,
			pods:      pods(3),
			fetchErr:  errAdapter,
			wantErr:   "unable to get metrics for resource cpu",
			wantErrIs: errAdapter,
		},
		{
			name:    "average value with no pods matched is an error",
			current: 3, target: 1000,
			readings: readings(1000),
			wantErr:  "no pods returned by selector",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.resource
			if res == "" {
				res = corev1.ResourceCPU
			}
			fake := metricstest.NewClient().SetResource(res, metricstest.PodsAnswer{Metrics: tc.readings, Timestamp: metricTime, Err: tc.fetchErr})
			calc := newTestCalculator(t, tc.pods, fake)
			got, err := calc.GetRawResourceReplicas(testContext(t), tc.current, tc.target, res, defaultTolerances, testNamespace, podSelector, "")
			check(t, got, err, tc.want, tc.wantErr, tc.wantErrIs)
		})
	}
}
