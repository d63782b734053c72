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

	"github.com/go-logr/logr"
	"github.com/kube-hpa/kube-hpa/pkg/milli"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	metricsapi "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// GetResourceMetric implements Client on the resource metrics API.
func (c *RESTClient) GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector labels.Selector, container string) (PodMetricsInfo, time.Time, error) {
	list, err := withTimeout(ctx, c.fetchTimeout, func(ctx context.Context) (*metricsapi.PodMetricsList, error) {
		return c.resource.PodMetricses(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("unable to fetch metrics from resource metrics API: %w", err)
	}
	if list == nil || len(list.Items) == 0 {
		return nil, time.Time{}, fmt.Errorf("%w from resource metrics API", ErrNoMetrics)
	}

	logger := klog.FromContext(ctx)
	readings := make(PodMetricsInfo, len(list.Items))
	oldest := list.Items[0].Timestamp.Time
	for i := range list.Items {
		pod := &list.Items[i]
		oldest = earlier(oldest, pod.Timestamp.Time)
		value, found := podUsage(logger, pod, resource, container)
		if !found {
			continue
		}
		readings[pod.Name] = PodMetric{
			Timestamp: pod.Timestamp.Time,
			Window:    pod.Window.Duration,
			Value:     value,
		}
	}
	return readings, oldest, nil
}

// podUsage returns the pod's usage of resource: that of the named container,
// or the sum over all its containers when container is empty. It reports
// false when the reading is incomplete, so that the pod counts as missing
// instead of as using less than it does.
func podUsage(logger logr.Logger, pod *metricsapi.PodMetrics, resource corev1.ResourceName, container string) (int64, bool) {
	if container != "" {
		return containerUsage(logger, pod, resource, container)
	}
	if len(pod.Containers) == 0 {
		return 0, false
	}
	var sum int64
	for _, c := range pod.Containers {
		usage, found := c.Usage[resource]
		if !found {
			logger.V(2).Info("Missing resource metric", "resourceMetric", resource, "pod", klog.KRef(pod.Namespace, pod.Name), "container", c.Name)
			return 0, false
		}
		sum = milli.Add(sum, milli.Value(usage))
	}
	return sum, true
}

// containerUsage returns the usage of resource by the named container of pod.
func containerUsage(logger logr.Logger, pod *metricsapi.PodMetrics, resource corev1.ResourceName, container string) (int64, bool) {
	for _, c := range pod.Containers {
		if c.Name != container {
			continue
		}
		usage, found := c.Usage[resource]
		if !found {
			logger.V(2).Info("Missing resource metric", "resourceMetric", resource, "pod", klog.KRef(pod.Namespace, pod.Name), "container", container)
			return 0, false
		}
		return milli.Value(usage), true
	}
	logger.V(2).Info("Missing container metric", "container", container, "pod", klog.KRef(pod.Namespace, pod.Name))
	return 0, false
}

// earlier returns the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
