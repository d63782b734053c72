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

// Package chaos is make chaos: a run of the local environment of
// test/e2e/framework (control plane with kwok nodes, Prometheus, the test
// metrics adapter, two hpa-controller-manager replicas electing a leader)
// with several hundred HPAs, during which kube-apiserver is killed and
// restarted, the leader replica is killed, the metrics adapter is killed,
// etcd is stopped for a while, the webhook certificate is rotated, and a
// person scales Deployments by hand. A checker watches HPAs, Deployments and
// Events through the API server, the adapter's record of fetches and the
// replicas' /metrics and logs, and reports every breach of the invariants
// (see Invariant) in a table that ends with `violations: N`.
//
// How a violation is told from the controller's legitimate work: the HPAs
// scaled by hand have a Value target met exactly by their metric, so the
// usage ratio is 1 at any replica count and the controller has no reason to
// change one; a pass over an HPA is a fetch of its own metric series at the
// adapter; a disruption (from its injection until kube-apiserver is ready,
// a replica leads and external metrics are served again) excuses passes and
// deadlines until two periods after it.
package chaos
