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
	"errors"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// ErrNoMetrics is wrapped by the error a fetch returns when the API answered
// with an empty list. Callers tell "the adapter has nothing for this metric"
// apart from other failures with errors.Is.
var ErrNoMetrics = errors.New("no metrics returned")

// PodMetric is one pod's reading of a metric.
type PodMetric struct {
	// Timestamp is when the reading was taken.
	Timestamp time.Time
	// Window is the span of time the reading was averaged over.
	Window time.Duration
	// Value is the reading as a milli-value.
	Value int64
}

// PodMetricsInfo maps pod names to their readings.
type PodMetricsInfo map[string]PodMetric

// Client fetches metric readings. Every method returns, with the readings,
// the timestamp of the oldest reading among them.
type Client interface {
	// GetResourceMetric returns the usage of resource by the pods matching
	// selector in namespace. With container set, a pod's reading is that
	// container's usage; otherwise it is the sum over the pod's containers.
	// A pod lacking the container or the resource is left out rather than
	// failing the whole fetch: the caller decides what a missing pod means.
	GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector labels.Selector, container string) (PodMetricsInfo, time.Time, error)

	// GetRawMetric returns the custom metric metricName of the pods matching
	// selector in namespace, restricted by metricSelector. apiGroup names
	// the API group that serves it (KEP-6382); empty means
	// custom.metrics.k8s.io.
	GetRawMetric(ctx context.Context, metricName, namespace string, selector, metricSelector labels.Selector, apiGroup string) (PodMetricsInfo, time.Time, error)

	// GetObjectMetric returns the custom metric metricName describing the
	// object objectRef in namespace, restricted by metricSelector, from
	// apiGroup (empty: custom.metrics.k8s.io).
	GetObjectMetric(ctx context.Context, metricName, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector, apiGroup string) (int64, time.Time, error)

	// GetExternalMetric returns every value of the external metric
	// metricName in namespace that matches selector, from apiGroup (empty:
	// external.metrics.k8s.io). An empty list is an error wrapping
	// ErrNoMetrics.
	GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error)
}
