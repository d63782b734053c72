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

package framework

import "testing"

func TestHasSeries(t *testing.T) {
	const page = `# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 42
rest_client_requests_total{code="200",host="10.0.0.1:443",method="GET"} 7
workqueue_depth{name="horizontalpodautoscaler"} 0
`
	cases := []struct {
		name   string
		metric string
		labels []string
		want   bool
	}{
		{"a series without labels", "go_goroutines", nil, true},
		{"a series with every label named", "rest_client_requests_total", []string{"code", "host", "method"}, true},
		{"a label the series lacks", "rest_client_requests_total", []string{"verb"}, false},
		{"a longer name that begins with the metric's is another metric", "go_gorout", nil, false},
		{"the HELP and TYPE lines are not series", "HELP", nil, false},
		{"a metric the page lacks", "process_start_time_seconds", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasSeries(page, tc.metric, tc.labels...); got != tc.want {
				t.Errorf("HasSeries(%s, %v) = %v, want %v", tc.metric, tc.labels, got, tc.want)
			}
		})
	}
}
