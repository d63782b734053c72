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
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/metrics/pkg/apis/custom_metrics"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// GetMetricByName answers the custom metric of one object: from its
// custom.object key, or for a pod from custom.pods. A metric with the empty
// fault answers NotFound, since one object cannot have an empty list.
func (p *Provider) GetMetricByName(ctx context.Context, name types.NamespacedName, info provider.CustomMetricInfo, metricSelector labels.Selector) (value *custom_metrics.MetricValue, err error) {
	defer func() {
		items := 0
		if value != nil {
			items = 1
		}
		p.counter.record(APICustom, info.Metric, items, err)
	}()
	config := p.source.Config()
	what := fmt.Sprintf("custom metric %s of %s %s", info.Metric, info.GroupResource, name)
	notFound := provider.NewMetricNotFoundForError(info.GroupResource, info.Metric, name.Name)
	if config.CustomFault != nil {
		if empty, err := play(ctx, p.clock, config.CustomFault, what); err != nil || empty {
			return nil, orIfNil(err, notFound)
		}
	}
	spec, q := p.lookup(config, info.GroupResource, name.Name, info.Metric)
	if spec == nil {
		return nil, notFound
	}
	if empty, err := play(ctx, p.clock, spec, what); err != nil || empty {
		return nil, orIfNil(err, notFound)
	}
	if q == nil {
		return nil, notFound
	}
	return p.metricValue(info, name, metricSelector, *q), nil
}

// GetMetricBySelector answers the custom metric of every object of a
// resource that selector picks in namespace (pods/*/<metric> in the URL):
// those that have a value, each from its custom.object key or, for pods,
// from custom.pods. A metric that no key names for the resource answers
// NotFound; one whose objects have no values answers an empty list.
func (p *Provider) GetMetricBySelector(ctx context.Context, namespace string, selector labels.Selector, info provider.CustomMetricInfo, metricSelector labels.Selector) (list *custom_metrics.MetricValueList, err error) {
	defer func() {
		items := 0
		if list != nil {
			items = len(list.Items)
		}
		p.counter.record(APICustom, info.Metric, items, err)
	}()
	return p.metricsBySelector(ctx, p.source.Config(), namespace, selector, info, metricSelector)
}

func (p *Provider) metricsBySelector(ctx context.Context, config *Config, namespace string, selector labels.Selector, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValueList, error) {
	what := fmt.Sprintf("custom metric %s of %s in namespace %q", info.Metric, info.GroupResource, namespace)
	list := &custom_metrics.MetricValueList{Items: []custom_metrics.MetricValue{}}
	if config.CustomFault != nil {
		if empty, err := play(ctx, p.clock, config.CustomFault, what); err != nil || empty {
			return nilIfErr(list, err)
		}
	}
	if !p.known(config, info.GroupResource, info.Metric) {
		return nil, provider.NewMetricNotFoundError(info.GroupResource, info.Metric)
	}
	// Each key's delay and fault play once per request, the pods key first
	// since it covers every pod whatever the lister finds.
	played := map[*Metric]bool{}
	emptied := map[*Metric]bool{}
	playOnce := func(spec *Metric) error {
		if played[spec] {
			return nil
		}
		played[spec] = true
		empty, err := play(ctx, p.clock, spec, what)
		emptied[spec] = empty
		return err
	}
	if pods := config.Pods[info.Metric]; pods != nil && p.isPods(info.GroupResource) {
		if err := playOnce(pods); err != nil || emptied[pods] {
			return nilIfErr(list, err)
		}
	}
	if p.lister == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("the adapter has no object lister to resolve selector %q", selector))
	}
	names, err := p.lister.ListNames(ctx, info.GroupResource, namespace, selector)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("listing %s matching %q: %w", info.GroupResource, selector, err))
	}
	for _, name := range names {
		spec, q := p.lookup(config, info.GroupResource, name, info.Metric)
		if spec == nil {
			continue
		}
		if err := playOnce(spec); err != nil {
			return nil, err
		}
		if emptied[spec] || q == nil {
			continue
		}
		nn := types.NamespacedName{Namespace: namespace, Name: name}
		list.Items = append(list.Items, *p.metricValue(info, nn, metricSelector, *q))
	}
	return list, nil
}

// lookup finds what the Config says about metric of one object: its
// custom.object key first, then for a pod the custom.pods key. The
// quantity is nil when the key has no value for this object (a fault
// alone, or a pods key without a value for every pod nor for this one).
func (p *Provider) lookup(config *Config, gr schema.GroupResource, name, metric string) (*Metric, *resource.Quantity) {
	for _, o := range config.Objects {
		if o.MetricName == metric && o.Name == name && p.sameResource(o.Kind, gr) {
			return o.Spec, firstValue(o.Spec)
		}
	}
	if spec := config.Pods[metric]; spec != nil && p.isPods(gr) {
		if q, ok := spec.Pods[name]; ok {
			return spec, &q
		}
		return spec, firstValue(spec)
	}
	return nil, nil
}

// known reports whether any key names metric for resource gr.
func (p *Provider) known(config *Config, gr schema.GroupResource, metric string) bool {
	for _, o := range config.Objects {
		if o.MetricName == metric && p.sameResource(o.Kind, gr) {
			return true
		}
	}
	return config.Pods[metric] != nil && p.isPods(gr)
}

func firstValue(m *Metric) *resource.Quantity {
	if len(m.Series) == 0 {
		return nil
	}
	q := m.Series[0].Value
	return &q
}

func (p *Provider) metricValue(info provider.CustomMetricInfo, name types.NamespacedName, metricSelector labels.Selector, q resource.Quantity) *custom_metrics.MetricValue {
	v := &custom_metrics.MetricValue{
		DescribedObject: p.describe(info.GroupResource, name),
		Metric:          custom_metrics.MetricIdentifier{Name: info.Metric},
		Timestamp:       metav1.NewTime(p.clock.Now()),
		Value:           q.DeepCopy(),
	}
	if metricSelector != nil && !metricSelector.Empty() {
		if sel, err := metav1.ParseToLabelSelector(metricSelector.String()); err == nil {
			v.Metric.Selector = sel
		}
	}
	return v
}

// orIfNil returns err, or fallback when err is nil.
func orIfNil(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// nilIfErr returns list, or only err when there is one.
func nilIfErr(list *custom_metrics.MetricValueList, err error) (*custom_metrics.MetricValueList, error) {
	if err != nil {
		return nil, err
	}
	return list, nil
}
