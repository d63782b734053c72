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

import (
	"context"

	"k8s.io/client-go/kubernetes"
)

// The API groups of the second test metrics adapter: the project's adapter
// again, registered for groups of its own as a vendor's adapter would be
// beside KEDA (KEP-6382). It serves the custom metrics API under one and
// the external metrics API under the other, from a ConfigMap of its own,
// so that the values and faults of the two providers are apart.
const (
	SourceCustomGroup      = "custom.second-adapter.kube-hpa.io"
	SourceExternalGroup    = "external.second-adapter.kube-hpa.io"
	sourceMetricsConfigMap = "test-metrics-second"
	sourceAdapterName      = "metrics-adapter-second"
)

// startSourceAdapter runs the second adapter and registers its groups.
func (l *Local) startSourceAdapter(ctx context.Context, kube kubernetes.Interface, dir, binary string) error {
	_, supervisor, err := l.startAdapterInstance(ctx, kube, dir, binary, adapterInstance{
		name:      sourceAdapterName,
		configMap: sourceMetricsConfigMap,
		apis:      []groupVersion{{SourceExternalGroup, "v1beta1"}, {SourceCustomGroup, "v1beta2"}},
		aliases:   map[string]string{SourceExternalGroup: "external.metrics.k8s.io", SourceCustomGroup: "custom.metrics.k8s.io"},
	})
	l.sourceAdapter = supervisor
	if err != nil {
		return err
	}
	l.config.SourceMetricsConfigMap = sourceMetricsConfigMap
	return nil
}
