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

package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/kube-hpa/kube-hpa/pkg/milli"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	customapi "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
)

// defaultCustomMetricWindow is the window assumed for a custom metric whose
// adapter does not say what its readings are averaged over; it is the
// resolution metrics-server collects at.
const defaultCustomMetricWindow = time.Minute

// podGroupKind is what the custom metrics API calls pods.
var podGroupKind = schema.GroupKind{Kind: "Pod"}

// GetRawMetric implements Client on the custom metrics API.
func (c *RESTClient) GetRawMetric(ctx context.Context, metricName, namespace string, selector, metricSelector labels.Selector, apiGroup string) (PodMetricsInfo, time.Time, error) {
	list, err := withTimeout(ctx, c.fetchTimeout, func(ctx context.Context) (*customapi.MetricValueList, error) {
		custom, err := c.customClient(ctx, apiGroup)
		if err != nil {
			return nil, err
		}
		return custom.NamespacedMetrics(namespace).GetForObjects(podGroupKind, selector, metricName, metricSelector)
	})
	if err != nil {
		return nil, time.Time{}, fetchError(customAPI, apiGroup, err)
	}
	if list == nil || len(list.Items) == 0 {
		return nil, time.Time{}, fmt.Errorf("%w from %s", ErrNoMetrics, customAPI.named(apiGroup))
	}

	readings := make(PodMetricsInfo, len(list.Items))
	oldest := list.Items[0].Timestamp.Time
	for i := range list.Items {
		m := &list.Items[i]
		oldest = earlier(oldest, m.Timestamp.Time)
		readings[m.DescribedObject.Name] = PodMetric{
			Timestamp: m.Timestamp.Time,
			Window:    customMetricWindow(m),
			Value:     milli.Value(m.Value),
		}
	}
	return readings, oldest, nil
}

// customMetricWindow returns the window the adapter reports for m, or the
// default when it reports none.
func customMetricWindow(m *customapi.MetricValue) time.Duration {
	if m.WindowSeconds == nil {
		return defaultCustomMetricWindow
	}
	return time.Duration(*m.WindowSeconds) * time.Second
}

// GetObjectMetric implements Client on the custom metrics API.
func (c *RESTClient) GetObjectMetric(ctx context.Context, metricName, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector, apiGroup string) (int64, time.Time, error) {
	gvk := schema.FromAPIVersionAndKind(objectRef.APIVersion, objectRef.Kind)
	value, err := withTimeout(ctx, c.fetchTimeout, func(ctx context.Context) (*customapi.MetricValue, error) {
		custom, err := c.customClient(ctx, apiGroup)
		if err != nil {
			return nil, err
		}
		if gvk.Group == "" && gvk.Kind == "Namespace" {
			// A namespace is described at the root of the API. Its name
			// is the HPA's own namespace whatever objectRef.Name says, so
			// that an HPA cannot read another namespace's metrics.
			return custom.RootScopedMetrics().GetForObject(gvk.GroupKind(), namespace, metricName, metricSelector)
		}
		return custom.NamespacedMetrics(namespace).GetForObject(gvk.GroupKind(), objectRef.Name, metricName, metricSelector)
	})
	if err != nil {
		return 0, time.Time{}, fetchError(customAPI, apiGroup, err)
	}
	if value == nil {
		return 0, time.Time{}, fmt.Errorf("%w from %s", ErrNoMetrics, customAPI.named(apiGroup))
	}
	return milli.Value(value.Value), value.Timestamp.Time, nil
}
