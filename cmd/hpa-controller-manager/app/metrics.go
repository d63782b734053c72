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
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	// component-base's workqueue metrics provider, as kube-controller-manager
	// uses it: on import it registers the workqueue_* metrics on the legacy
	// registry and becomes client-go's provider for every named queue, the
	// HPA controller's among them.
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
)

// metricsGatherer is what /metrics serves: the controller's own registry,
// and the workqueue_* families of the legacy registry, where component-base
// puts them. The legacy registry's Go and process collectors stay out, so
// that the binary exposes the metrics it always did.
func metricsGatherer(registry metrics.KubeRegistry) prometheus.Gatherer {
	return prometheus.Gatherers{registry, workqueueFamilies{legacyregistry.DefaultGatherer}}
}

// workqueueFamilies keeps the workqueue_* families of a gatherer.
type workqueueFamilies struct{ prometheus.Gatherer }

func (g workqueueFamilies) Gather() ([]*dto.MetricFamily, error) {
	families, err := g.Gatherer.Gather()
	kept := families[:0]
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "workqueue_") {
			kept = append(kept, f)
		}
	}
	return kept, err
}
