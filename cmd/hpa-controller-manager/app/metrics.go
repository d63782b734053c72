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

package app

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	// client-go's metrics as kube-controller-manager exports them: on
	// import, component-base registers on the legacy registry the
	// rest_client_* families (requests, latency, rate limiter latency),
	// the workqueue_* families of every named queue, the HPA controller's
	// among them, and client-go's leader election gauge and counter.
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
)

// metricsGatherer is what /metrics serves: the controller's own registry
// and the legacy registry, where component-base keeps client-go's
// families and the process_* and go_* collectors, as a Kubernetes
// component serves them.
func metricsGatherer(registry metrics.KubeRegistry) prometheus.Gatherer {
	return prometheus.Gatherers{registry, legacyregistry.DefaultGatherer}
}
