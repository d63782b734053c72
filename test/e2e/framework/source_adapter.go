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
