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
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

func TestTolerancesIsWithin(t *testing.T) {
	tests := []struct {
		name       string
		tolerances Tolerances
		ratio      float64
		want       bool
	}{
		{name: "a ratio of exactly 1 is within zero tolerances", tolerances: Tolerances{}, ratio: 1, want: true},
		{name: "any change is outside zero tolerances", tolerances: Tolerances{}, ratio: 1.0001, want: false},
		{name: "the scale-down edge is within", tolerances: Tolerances{ScaleDown: 0.25, ScaleUp: 0.1}, ratio: 0.75, want: true},
		{name: "just below the scale-down edge is outside", tolerances: Tolerances{ScaleDown: 0.25, ScaleUp: 0.1}, ratio: 0.7499, want: false},
		{name: "the scale-up edge is within", tolerances: Tolerances{ScaleDown: 0.1, ScaleUp: 0.5}, ratio: 1.5, want: true},
		{name: "just above the scale-up edge is outside", tolerances: Tolerances{ScaleDown: 0.1, ScaleUp: 0.5}, ratio: 1.5001, want: false},
		{name: "the scale-up tolerance does not widen the scale-down side", tolerances: Tolerances{ScaleDown: 0, ScaleUp: 0.5}, ratio: 0.9, want: false},
		{name: "NaN is never within", tolerances: Tolerances{ScaleDown: 1, ScaleUp: 1}, ratio: math.NaN(), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tolerances.IsWithin(tc.ratio); got != tc.want {
				t.Errorf("%v.IsWithin(%v) = %v, want %v", tc.tolerances, tc.ratio, got, tc.want)
			}
		})
	}
}

func TestTolerancesString(t *testing.T) {
	if got, want := (Tolerances{ScaleDown: 0.1, ScaleUp: 0.25}).String(), "[down:10.0%, up:25.0%]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestArithmetic(t *testing.T) {
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		{name: "ceilReplicas rounds up", got: int64(ceilReplicas(2.01)), want: 3},
		{name: "ceilReplicas keeps a negative count, as upstream", got: int64(ceilReplicas(-3)), want: -3},
		{name: "ceilReplicas maps a count below MinInt32 to 0", got: int64(ceilReplicas(math.Inf(-1))), want: 0},
		{name: "ceilReplicas maps NaN to 0", got: int64(ceilReplicas(math.NaN())), want: 0},
		{name: "ceilReplicas caps +Inf at MaxInt32", got: int64(ceilReplicas(math.Inf(1))), want: math.MaxInt32},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
}

// TestMetricsClientArguments pins what each method asks the metrics client
// for, since the controller's status and the adapter depend on it.
func TestMetricsClientArguments(t *testing.T) {
	metricSelector := labels.SelectorFromSet(labels.Set{"verb": "GET"})
	tests := []struct {
		name string
		call func(*Calculator) error
		want metricstest.Request
	}{
		{
			name: "resource utilization asks for the container's resource of the selected pods",
			call: func(c *Calculator) error {
				_, err := c.GetResourceReplicas(testContext(t), 1, 50, corev1.ResourceMemory, defaultTolerances, testNamespace, podSelector, "app")
				return err
			},
			want: metricstest.Request{Kind: metricstest.Resource, Name: "memory", Namespace: testNamespace, Selector: podSelector, Container: "app"},
		},
		{
			name: "resource average value asks for the container's resource of the selected pods",
			call: func(c *Calculator) error {
				_, err := c.GetRawResourceReplicas(testContext(t), 1, 50, corev1.ResourceCPU, defaultTolerances, testNamespace, podSelector, "app")
				return err
			},
			want: metricstest.Request{Kind: metricstest.Resource, Name: "cpu", Namespace: testNamespace, Selector: podSelector, Container: "app"},
		},
		{
			name: "pods metric passes the metric selector",
			call: func(c *Calculator) error {
				_, err := c.GetMetricReplicas(testContext(t), 1, 50, "qps", defaultTolerances, testNamespace, podSelector, metricSelector, "")
				return err
			},
			want: metricstest.Request{Kind: metricstest.Pods, Name: "qps", Namespace: testNamespace, Selector: podSelector, MetricSelector: metricSelector},
		},
		{
			name: "object metric passes the described object and metric selector",
			call: func(c *Calculator) error {
				_, err := c.GetObjectMetricReplicas(testContext(t), 1, 50, "qps", defaultTolerances, testNamespace, deployment, podSelector, metricSelector, "")
				return err
			},
			want: metricstest.Request{Kind: metricstest.Object, Name: "qps", Namespace: testNamespace, MetricSelector: metricSelector, ObjectRef: deployment},
		},
		{
			name: "object average value passes the described object and metric selector",
			call: func(c *Calculator) error {
				_, err := c.GetObjectPerPodMetricReplicas(testContext(t), 1, 50, "qps", defaultTolerances, testNamespace, deployment, metricSelector, "")
				return err
			},
			want: metricstest.Request{Kind: metricstest.Object, Name: "qps", Namespace: testNamespace, MetricSelector: metricSelector, ObjectRef: deployment},
		},
		{
			name: "external metric converts the metric selector",
			call: func(c *Calculator) error {
				_, err := c.GetExternalMetricReplicas(testContext(t), 1, 50, "queue_depth", defaultTolerances, testNamespace, queueSelector, podSelector, "")
				return err
			},
			want: metricstest.Request{Kind: metricstest.External, Name: "queue_depth", Namespace: testNamespace, Selector: labels.SelectorFromSet(labels.Set{"queue": "jobs"})},
		},
		{
			name: "per-pod external metric converts the metric selector",
			call: func(c *Calculator) error {
				_, err := c.GetExternalPerPodMetricReplicas(testContext(t), 1, 50, "queue_depth", defaultTolerances, testNamespace, queueSelector, "")
				return err
			},
			want: metricstest.Request{Kind: metricstest.External, Name: "queue_depth", Namespace: testNamespace, Selector: labels.SelectorFromSet(labels.Set{"queue": "jobs"})},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := metricstest.NewClient() // no answers: every call fails, after being recorded
			calc := newTestCalculator(t, pods(1), fake)
			if err := tc.call(calc); err == nil {
				t.Fatal("want an error from a metric without an answer")
			}
			got := fake.Requests()
			if len(got) != 1 {
				t.Fatalf("got %d requests, want 1: %+v", len(got), got)
			}
			if !sameRequest(got[0], tc.want) {
				t.Errorf("got request %+v, want %+v", got[0], tc.want)
			}
		})
	}
}

// sameRequest compares requests, selectors by their string form.
func sameRequest(a, b metricstest.Request) bool {
	str := func(s labels.Selector) string {
		if s == nil {
			return "<nil>"
		}
		return s.String()
	}
	return a.Kind == b.Kind && a.Name == b.Name && a.Namespace == b.Namespace && a.Container == b.Container &&
		str(a.Selector) == str(b.Selector) && str(a.MetricSelector) == str(b.MetricSelector) &&
		reflect.DeepEqual(a.ObjectRef, b.ObjectRef)
}

// TestReadingsAreNotShared checks that the calculator's bookkeeping (it
// drops and fills in readings) does not leak into what the client returns
// next time.
func TestReadingsAreNotShared(t *testing.T) {
	// web-3 has no reading; counted at 100% it would turn the scale-down
	// around, so the replicas stay. Were that 100% kept for the next call,
	// it would read as a real reading and scale up.
	fake := metricstest.NewClient().SetResource(corev1.ResourceCPU, metricstest.PodsAnswer{Metrics: readings(450, 450, 450), Timestamp: metricTime})
	calc := newTestCalculator(t, pods(4), fake)
	for i := range 2 {
		got, err := calc.GetResourceReplicas(testContext(t), 4, 50, corev1.ResourceCPU, defaultTolerances, testNamespace, podSelector, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := result(4, 45, 450); got != want {
			t.Errorf("call %d: got %+v, want %+v", i, got, want)
		}
	}
}

func TestNewDefaultsToTheRealClock(t *testing.T) {
	calc := New(Options{MetricsClient: metricstest.NewClient()})
	if d := time.Since(calc.clock.Now()); d < 0 || d > time.Minute {
		t.Errorf("default clock is off by %v", d)
	}
}
