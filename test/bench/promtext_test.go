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

package bench

import (
	"strings"
	"testing"
)

func TestParseSamples(t *testing.T) {
	const text = `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",group="apps",resource="deployments",subresource="scale",verb="GET",version="v1"} 12
apiserver_request_total{code="200",group="",resource="pods",subresource="",verb="LIST",version="v1"} 3 1700000000000
apiserver_request_total{code="200",resource="",verb="GET",quote="a \"b\", }c"} 1.5e+01
other_total 7
horizontal_pod_autoscaler_controller_reconciliations_total{action="none",error="none"} 40
`
	tests := []struct {
		name   string
		names  []string
		want   int
		values map[string]float64 // by requestKey
	}{
		{name: "one metric, labels with escapes and timestamps", names: []string{requestMetric}, want: 3,
			values: map[string]float64{"GET apps/deployments/scale": 12, "LIST pods": 3, "GET (non-resource)": 15}},
		{name: "every metric", want: 5},
		{name: "a metric without labels", names: []string{"other_total"}, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			samples, err := parseSamples(strings.NewReader(text), tc.names...)
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != tc.want {
				t.Fatalf("got %d samples, want %d: %+v", len(samples), tc.want, samples)
			}
			if tc.values == nil {
				return
			}
			got := sumBy(samples, requestKey)
			for k, v := range tc.values {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}

func TestParseSamplesRejectsMalformed(t *testing.T) {
	for _, line := range []string{
		`metric{a="1"`,
		`metric{a=1} 2`,
		`metric{a="1"} x`,
		`metric{a="1"}`,
	} {
		if _, err := parseSamples(strings.NewReader(line + "\n")); err == nil {
			t.Errorf("%q parsed without error", line)
		}
	}
}

func TestRequestKey(t *testing.T) {
	tests := []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"verb": "GET", "group": "apps", "resource": "deployments", "subresource": "scale"}, "GET apps/deployments/scale"},
		{map[string]string{"verb": "WATCH", "resource": "pods"}, "WATCH pods"},
		{map[string]string{"verb": "PUT", "group": "autoscaling", "resource": "horizontalpodautoscalers", "subresource": "status"}, "PUT autoscaling/horizontalpodautoscalers/status"},
		{map[string]string{"verb": "GET", "group": externalGroup, "resource": "bench_shared"}, "GET " + externalGroup},
		{map[string]string{"verb": "GET"}, "GET (non-resource)"},
		{map[string]string{"resource": "pods"}, ""},
	}
	for _, tc := range tests {
		if got := requestKey(tc.labels); got != tc.want {
			t.Errorf("requestKey(%v) = %q, want %q", tc.labels, got, tc.want)
		}
	}
}

// TestReadControllerMetrics reads a page shaped like kube-controller-manager's:
// several queues, histograms with their buckets, several reconcile series.
func TestReadControllerMetrics(t *testing.T) {
	const page = `# HELP horizontal_pod_autoscaler_controller_reconciliations_total [BETA] Number of reconciliations of HPA controller.
# TYPE horizontal_pod_autoscaler_controller_reconciliations_total counter
horizontal_pod_autoscaler_controller_reconciliations_total{action="none",error="none"} 40
horizontal_pod_autoscaler_controller_reconciliations_total{action="scale_up",error="none"} 2
# HELP workqueue_depth [BETA] Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="horizontalpodautoscaler"} 3
workqueue_depth{name="garbage_collector_attempt_to_delete"} 100
# HELP workqueue_queue_duration_seconds [BETA] How long in seconds an item stays in workqueue before being requested.
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{name="horizontalpodautoscaler",le="1e-08"} 0
workqueue_queue_duration_seconds_bucket{name="horizontalpodautoscaler",le="9.999999999999999e-06"} 10
workqueue_queue_duration_seconds_bucket{name="horizontalpodautoscaler",le="10"} 41
workqueue_queue_duration_seconds_bucket{name="horizontalpodautoscaler",le="+Inf"} 42
workqueue_queue_duration_seconds_sum{name="horizontalpodautoscaler"} 0.84
workqueue_queue_duration_seconds_count{name="horizontalpodautoscaler"} 42
workqueue_queue_duration_seconds_bucket{name="horizontalpodautoscaler_other",le="+Inf"} 5
workqueue_queue_duration_seconds_sum{name="horizontalpodautoscaler_other"} 50
workqueue_queue_duration_seconds_count{name="horizontalpodautoscaler_other"} 5
# HELP workqueue_work_duration_seconds [BETA] How long in seconds processing an item from workqueue takes.
# TYPE workqueue_work_duration_seconds histogram
workqueue_work_duration_seconds_sum{name="horizontalpodautoscaler"} 9
workqueue_work_duration_seconds_count{name="horizontalpodautoscaler"} 42
`
	tests := []struct {
		name string
		page string
		want controllerMetrics
	}{
		{name: "every figure, of the HPA queue only", page: page,
			want: controllerMetrics{reconciles: 42, queueWait: 0.84, queueWaits: 42, queueDepth: 3}},
		{name: "a controller that has not started its HPA controller serves none", page: "# HELP go_goroutines x\ngo_goroutines 12\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readControllerMetrics(strings.NewReader(tc.page))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSumWhere(t *testing.T) {
	samples := []sample{
		{name: "m", labels: map[string]string{"name": "a", "le": "+Inf"}, value: 1},
		{name: "m", labels: map[string]string{"name": "a", "le": "1"}, value: 2},
		{name: "m", labels: map[string]string{"name": "b"}, value: 4},
		{name: "m", labels: map[string]string{}, value: 8},
		{name: "n", labels: map[string]string{"name": "a"}, value: 16},
	}
	tests := []struct {
		name  string
		match map[string]string
		want  float64
	}{
		{name: "no match adds every sample of the name", want: 15},
		{name: "one label", match: map[string]string{"name": "a"}, want: 3},
		{name: "every label of match must be there", match: map[string]string{"name": "a", "le": "+Inf"}, want: 1},
		{name: "an empty value matches an absent label", match: map[string]string{"name": ""}, want: 8},
		{name: "no sample", match: map[string]string{"name": "c"}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sumWhere(samples, "m", tc.match); got != tc.want {
				t.Errorf("sumWhere = %v, want %v", got, tc.want)
			}
		})
	}
}
