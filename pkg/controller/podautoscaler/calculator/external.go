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

package calculator

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// GetExternalMetricReplicas proposes a replica count for an External metric
// with a Value target: the sum of the metric's series over targetUsage,
// shared among the ready pods podSelector matches.
func (c *Calculator) GetExternalMetricReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, metricName string, tolerances Tolerances, namespace string, metricSelector *metav1.LabelSelector, podSelector labels.Selector, apiGroup string) (Result, error) {
	values, timestamp, err := c.externalValues(ctx, metricName, namespace, metricSelector, apiGroup)
	if err != nil {
		return Result{}, err
	}
	usage := valueTargetTotal(values)
	replicas, err := c.proposeFromValue(currentReplicas, float64(usage)/float64(targetUsage), tolerances, namespace, podSelector)
	if err != nil {
		return Result{}, err
	}
	return Result{Replicas: replicas, RawUsage: usage, Timestamp: timestamp}, nil
}

// GetExternalPerPodMetricReplicas proposes a replica count for an External
// metric with an AverageValue target: targetUsagePerPod per replica.
// statusReplicas is the workload's current replica count.
func (c *Calculator) GetExternalPerPodMetricReplicas(ctx context.Context, statusReplicas int32, targetUsagePerPod int64, metricName string, tolerances Tolerances, namespace string, metricSelector *metav1.LabelSelector, apiGroup string) (Result, error) {
	values, timestamp, err := c.externalValues(ctx, metricName, namespace, metricSelector, apiGroup)
	if err != nil {
		return Result{}, err
	}
	replicas, average := proposeFromTotal(statusReplicas, averageValueTargetTotal(values), targetUsagePerPod, tolerances)
	return Result{Replicas: replicas, RawUsage: average, Timestamp: timestamp}, nil
}

// externalValues fetches the series of the external metric.
func (c *Calculator) externalValues(ctx context.Context, metricName, namespace string, metricSelector *metav1.LabelSelector, apiGroup string) ([]int64, time.Time, error) {
	selector, err := metav1.LabelSelectorAsSelector(metricSelector)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("invalid selector for external metric %s: %w", metricName, err)
	}
	values, timestamp, err := c.metrics.GetExternalMetric(ctx, metricName, namespace, selector, apiGroup)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("unable to get external metric %s/%s/%+v: %w", namespace, metricName, metricSelector, err)
	}
	return values, timestamp, nil
}
