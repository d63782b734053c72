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

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// row is a titled row of panels.
type row struct {
	title  string
	panels []cog.Builder[dashboard.Panel]
}

const (
	reconciliations = `horizontal_pod_autoscaler_controller_reconciliations_total`
	computations    = `horizontal_pod_autoscaler_controller_metric_computation_total`
	hpaMatchers     = `namespace=~"$namespace", horizontalpodautoscaler=~"$hpa"`
)

func rows() []row {
	return []row{
		{"Overview", []cog.Builder[dashboard.Panel]{
			single("HPAs", "HPAs the leader manages.", "short", neutral(),
				query{`max(horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers{` + job + `})`, ""}),
			single("HPAs in fallback", "HPAs with an External metric scaling on its fallback (kube-state-metrics).", "short", redFrom(1),
				query{`count(` + fallbackActive("") + ` == 1) or vector(0)`, ""}),
			single("Pass errors", "Share of passes that end in an internal error.", "percentunit", redFrom(0.1),
				query{`sum(rate(` + reconciliations + `{` + job + `, error="internal"}[$__rate_interval])) / sum(rate(` + reconciliations + `{` + job + `}[$__rate_interval]))`, ""}),
			single("Leaders", "Replicas that hold the lease: 1 when healthy.", "short", greenAt(1),
				query{`sum(leader_election_master_status{` + job + `})`, ""}),
		}},
		{"Fallback", []cog.Builder[dashboard.Panel]{
			states("Fallback state by HPA", "ExternalMetricFallbackActive of each HPA with a fallback, from kube-state-metrics (deploy/kube-state-metrics for the autoscaling.kube-hpa.io kind).",
				"Normal", "Fallback",
				query{fallbackActive(`, ` + hpaMatchers), "{{namespace}}/{{horizontalpodautoscaler}}"}),
		}},
		{"Metric fetches", []cog.Builder[dashboard.Panel]{
			series("Fetch errors by metric type and error", "Failed metric computations a second. Resource and ContainerResource read metrics.k8s.io, Pods and Object custom.metrics.k8s.io, External external.metrics.k8s.io.", "ops", 8,
				query{`sum by (metric_type, error) (rate(` + computations + `{` + job + `, error!="none"}[$__rate_interval]))`, "{{metric_type}} ({{error}})"}),
			series("Fetch error ratio by metric type", "Share of each metric type's computations that fail.", "percentunit", 8,
				query{`sum by (metric_type) (rate(` + computations + `{` + job + `, error="internal"}[$__rate_interval])) / sum by (metric_type) (rate(` + computations + `{` + job + `}[$__rate_interval]))`, "{{metric_type}}"}),
			series("Fetch latency p99 by metric type", "Time to compute one metric of an HPA, its fetch included.", "s", 8,
				query{quantile(0.99, `horizontal_pod_autoscaler_controller_metric_computation_duration_seconds_bucket`, job, "metric_type, le"), "{{metric_type}}"}),
		}},
		{"Passes", []cog.Builder[dashboard.Panel]{
			series("Passes by action and error, against those due", "Passes done a second, by outcome, and the passes the HPAs' periods ask for.", "ops", 12,
				query{`sum by (action, error) (rate(` + reconciliations + `{` + job + `}[$__rate_interval]))`, "{{action}} ({{error}})"},
				query{passesDue, "due"}),
			series("Pass latency (p50, p99)", "Time to reconcile one HPA.", "s", 12,
				query{quantile(0.5, `horizontal_pod_autoscaler_controller_reconciliation_duration_seconds_bucket`, job, "le"), "p50"},
				query{quantile(0.99, `horizontal_pod_autoscaler_controller_reconciliation_duration_seconds_bucket`, job, "le"), "p99"}),
		}},
		{"Queue", []cog.Builder[dashboard.Panel]{
			series("Queue depth", "HPA keys due and waiting for a worker.", "short", 8,
				query{`sum(workqueue_depth{` + job + `, ` + queueName + `})`, "depth"}),
			series("Queue wait (p50, p99)", "Time an HPA key waits from due to picked up.", "s", 8,
				query{quantile(0.5, `workqueue_queue_duration_seconds_bucket`, job+`, `+queueName, "le"), "p50"},
				query{quantile(0.99, `workqueue_queue_duration_seconds_bucket`, job+`, `+queueName, "le"), "p99"}),
			series("Workers", "The longest pass in progress, and retries a second after errors.", "short", 8,
				query{`max(workqueue_longest_running_processor_seconds{` + job + `, ` + queueName + `})`, "longest running (s)"},
				query{`sum(rate(workqueue_retries_total{` + job + `, ` + queueName + `}[$__rate_interval]))`, "retries/s"}),
		}},
		{"Replicas", []cog.Builder[dashboard.Panel]{
			series("Desired and current replicas by HPA", "The count the controller last wanted, and the target's count when it last read it: its own series, so the extended kind needs no kube-state-metrics here.", "short", 24,
				query{perHPA(`horizontal_pod_autoscaler_controller_desired_replicas`), "{{namespace}}/{{hpa_name}} desired"},
				query{perHPA(`horizontal_pod_autoscaler_controller_current_replicas`), "{{namespace}}/{{hpa_name}} current"}),
		}},
	}
}
