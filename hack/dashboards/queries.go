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

package main

import "fmt"

// The controller's series are selected by the dashboard's job variable, so
// that kube-controller-manager's own HPA controller (whose metrics have the
// same names) stays out unless chosen.
const job = `job=~"$job"`

// queueName is the name the controller gives its workqueue, the value of
// the workqueue_* series' name label.
const queueName = `name="horizontalpodautoscaler"`

// fallbackActive is 1 for each HPA with an External metric in fallback and
// 0 for the others that have a fallback: the ExternalMetricFallbackActive
// condition as kube-state-metrics exports it, for native HPAs by itself and
// for the extended kind with deploy/kube-state-metrics. customresource_group
// keeps a native HPA and an extended one of the same name apart.
func fallbackActive(matchers string) string {
	return fmt.Sprintf(`max by (namespace, horizontalpodautoscaler, customresource_group) (
    kube_horizontalpodautoscaler_status_condition{condition="ExternalMetricFallbackActive", status="true"%[1]s}
  or
    kube_hpa_horizontalpodautoscaler_status_condition{condition="ExternalMetricFallbackActive"%[1]s}
)`, matchers)
}

// perHPA is one of the controller's per-HPA gauges (labelled namespace
// and hpa_name, as upstream's desired_replicas) for the HPAs the
// dashboard's boxes select. Replicas sit on the leader (or a shard's
// holder) alone, so max keeps one series per HPA across restarts.
func perHPA(gauge string) string {
	return fmt.Sprintf(`max by (namespace, hpa_name) (%s{`+job+`, namespace=~"$namespace", hpa_name=~"$hpa"})`, gauge)
}

// quantile is the q-quantile of a histogram's rate, per the labels of by.
func quantile(q float64, bucket, matchers, by string) string {
	return fmt.Sprintf(`histogram_quantile(%g, sum by (%s) (rate(%s{%s}[$__rate_interval])))`, q, by, bucket, matchers)
}

// passesDue is how many passes a second the HPAs' periods ask for: one per
// HPA and period, from each HPA's sync_period_seconds where the controller
// exports it (HPAConfigurableSyncPeriod on), else the HPA count over the
// period typed into the dashboard's sync_period box.
const passesDue = `sum(1 / horizontal_pod_autoscaler_controller_sync_period_seconds{` + job + `})
  or
max(horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers{` + job + `}) / $sync_period`
