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

// Package monitor exposes the HPA controller's Prometheus metrics under
// upstream's names, labels and buckets (subsystem
// horizontal_pod_autoscaler_controller of kube-controller-manager v1.36),
// so that dashboards and alerts written for the in-tree controller keep
// working:
//
//   - reconciliations_total and reconciliation_duration_seconds, labelled by
//     action and error;
//   - metric_computation_total and metric_computation_duration_seconds,
//     labelled by action, error and metric_type;
//   - num_horizontal_pod_autoscalers, the number of HPAs the controller
//     manages;
//   - desired_replicas, labelled by namespace and hpa_name as upstream, and
//     by hpa_api_version (ours): a native autoscaling/v2 HPA and an extended
//     one of the same name each have their series.
//
// Upstream registers these on the process-wide legacy registry once; here
// New registers a fresh set on the registry it is given, so that tests and
// several controllers in one process each get their own. One difference:
// upstream counts HPAs up and down as they are added and deleted, while
// Monitor.SetHPACount sets the count the controller reads from its index,
// which cannot drift; and Monitor.DeleteHPA drops the desired_replicas
// series of a deleted HPA, which upstream keeps until the process restarts.
//
// The workqueue_* metrics of the controller's queue come from
// component-base's provider, as in kube-controller-manager (the binary
// wires it; see cmd/hpa-controller-manager/app/metrics.go).
package monitor
