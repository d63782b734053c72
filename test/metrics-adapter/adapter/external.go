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

package adapter

import (
	"context"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/metrics/pkg/apis/external_metrics"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// GetExternalMetric answers the series of an external.<metric> key whose
// labels match selector, in any namespace, after playing the metric's
// fault, or fault.external's. The fetch log records the request when it
// arrives, before any delay.
func (p *Provider) GetExternalMetric(ctx context.Context, _ string, selector labels.Selector, info provider.ExternalMetricInfo) (list *external_metrics.ExternalMetricValueList, err error) {
	p.fetchLog.record(APIExternal, info.Metric, selector, p.clock.Now())
	defer func() {
		items := 0
		if list != nil {
			items = len(list.Items)
		}
		p.counter.record(APIExternal, info.Metric, items, err)
	}()
	return p.externalMetric(ctx, p.source.Config(), selector, info.Metric)
}

func (p *Provider) externalMetric(ctx context.Context, config *Config, selector labels.Selector, name string) (*external_metrics.ExternalMetricValueList, error) {
	what := "external metric " + name
	empty := &external_metrics.ExternalMetricValueList{Items: []external_metrics.ExternalMetricValue{}}
	if config.ExternalFault != nil {
		isEmpty, err := play(ctx, p.clock, config.ExternalFault, what)
		if err != nil {
			return nil, err
		}
		if isEmpty {
			return empty, nil
		}
	}
	m, ok := config.External[name]
	if !ok {
		return nil, provider.NewMetricNotFoundError(schema.GroupResource{Group: external_metrics.GroupName}, name)
	}
	isEmpty, err := play(ctx, p.clock, m, what)
	if err != nil {
		return nil, err
	}
	if isEmpty {
		return empty, nil
	}
	if selector == nil {
		selector = labels.Everything()
	}
	now := metav1.NewTime(p.clock.Now())
	series := m.Series
	if m.Query != "" {
		if series, err = p.querySeries(ctx, m, what, now.Time); err != nil {
			return nil, err
		}
	}
	list := empty
	for _, s := range series {
		if !selector.Matches(labels.Set(s.Labels)) {
			continue
		}
		list.Items = append(list.Items, external_metrics.ExternalMetricValue{
			MetricName:   name,
			MetricLabels: maps.Clone(s.Labels),
			Timestamp:    now,
			Value:        s.Value.DeepCopy(),
		})
	}
	return list, nil
}

// ListAllExternalMetrics lists the external.<metric> keys.
func (p *Provider) ListAllExternalMetrics() []provider.ExternalMetricInfo {
	names := slices.Sorted(maps.Keys(p.source.Config().External))
	out := make([]provider.ExternalMetricInfo, 0, len(names))
	for _, n := range names {
		out = append(out, provider.ExternalMetricInfo{Metric: n})
	}
	return out
}
