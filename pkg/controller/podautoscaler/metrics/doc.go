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

// Package metrics fetches the readings the HPA controller scales on: pod
// resource usage from the resource metrics API (metrics.k8s.io), pod and
// object metrics from the custom metrics API (custom.metrics.k8s.io) and
// metrics from outside the cluster from the external metrics API
// (external.metrics.k8s.io).
//
// Client is the seam the controller depends on; NewRESTClient builds the
// implementation that talks to the aggregated APIs. Every fetch is bounded by
// a time-out, so that an adapter that never answers costs a worker at most
// that long. Values are milli-values (a reading of 1.5 is 1500); one beyond
// the int64 range saturates at its bound (MilliValue), never wraps around.
package metrics
