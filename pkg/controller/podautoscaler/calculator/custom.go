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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/labels"
)

// GetMetricReplicas proposes a replica count for a Pods metric served by
// apiGroup (empty: the default API), as every method here takes it:
// targetUsage (a milli-value) per pod on average.
func (c *Calculator) GetMetricReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, metricName string, tolerances Tolerances, namespace string, selector, metricSelector labels.Selector, apiGroup string) (Result, error) {
	readings, timestamp, err := c.metrics.GetRawMetric(ctx, metricName, namespace, selector, metricSelector, apiGroup)
	if err != nil {
		return Result{}, fmt.Errorf("unable to get metric %s: %w", metricName, err)
	}
	replicas, average, err := c.averageValueReplicas(readings, currentReplicas, targetUsage, tolerances, namespace, selector, "")
	if err != nil {
		return Result{}, err
	}
	return Result{Replicas: replicas, RawUsage: average, Timestamp: timestamp}, nil
}

// GetObjectMetricReplicas proposes a replica count for an Object metric with
// a Value target: the metric of objectRef over targetUsage, shared among the
// ready pods selector matches.
func (c *Calculator) GetObjectMetricReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, metricName string, tolerances Tolerances, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, selector, metricSelector labels.Selector, apiGroup string) (Result, error) {
	usage, timestamp, err := c.metrics.GetObjectMetric(ctx, metricName, namespace, objectRef, metricSelector, apiGroup)
	if err != nil {
		return Result{}, objectMetricError(metricName, namespace, objectRef, err)
	}
	replicas, err := c.proposeFromValue(currentReplicas, float64(usage)/float64(targetUsage), tolerances, namespace, selector)
	if err != nil {
		return Result{}, err
	}
	return Result{Replicas: replicas, RawUsage: usage, Timestamp: timestamp}, nil
}

// GetObjectPerPodMetricReplicas proposes a replica count for an Object
// metric with an AverageValue target: targetAverageUsage per replica.
// statusReplicas is the workload's current replica count.
func (c *Calculator) GetObjectPerPodMetricReplicas(ctx context.Context, statusReplicas int32, targetAverageUsage int64, metricName string, tolerances Tolerances, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector, apiGroup string) (Result, error) {
	usage, timestamp, err := c.metrics.GetObjectMetric(ctx, metricName, namespace, objectRef, metricSelector, apiGroup)
	if err != nil {
		return Result{}, objectMetricError(metricName, namespace, objectRef, err)
	}
	replicas, average := proposeFromTotal(statusReplicas, usage, targetAverageUsage, tolerances)
	return Result{Replicas: replicas, RawUsage: average, Timestamp: timestamp}, nil
}

// objectMetricError words the failure exactly as upstream v1.37 does, since
// users and alerts read this text in events: "<metric> on <kind>
// <namespace>/<name>: <cause>" (the differential test holds us to it).
func objectMetricError(metricName, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, err error) error {
	return fmt.Errorf("unable to get metric %s on %s %s/%s: %w", metricName, objectRef.Kind, namespace, objectRef.Name, err)
}

// proposeFromValue turns the usage ratio of a Value target into a replica
// count, scaling the ready pods that share the load.
func (c *Calculator) proposeFromValue(currentReplicas int32, usageRatio float64, tolerances Tolerances, namespace string, selector labels.Selector) (int32, error) {
	if currentReplicas == 0 {
		// Scaled to zero: there are no pods to scale and no current count
		// for a tolerance to keep, and any demand must bring a pod back.
		return ceilReplicas(usageRatio), nil
	}
	if tolerances.IsWithin(usageRatio) {
		return currentReplicas, nil
	}
	ready, err := c.readyPodCount(namespace, selector)
	if err != nil {
		return 0, fmt.Errorf("unable to calculate ready pods: %w", err)
	}
	// Pods that are not ready yet do not share the load, so they are not
	// scaled; with none ready this proposes 0, as upstream does.
	return ceilReplicas(usageRatio * float64(ready)), nil
}

// proposeFromTotal turns the total of an AverageValue target (Object or
// External) into a replica count, and returns the average per replica.
func proposeFromTotal(statusReplicas int32, total, targetPerReplica int64, tolerances Tolerances) (replicas int32, average int64) {
	wanted := ceilReplicas(float64(total) / float64(targetPerReplica))
	if statusReplicas <= 0 {
		// At zero replicas there is no average: upstream divides by zero
		// here and writes -9223372036854775808m into the HPA's status. The
		// total is what one replica would carry, so report that, and
		// propose from the total alone: no tolerance can hold back the
		// first replica.
		return wanted, total
	}
	replicas = statusReplicas
	if !tolerances.IsWithin(float64(total) / (float64(targetPerReplica) * float64(statusReplicas))) {
		replicas = wanted
	}
	return replicas, averagePerReplica(total, statusReplicas)
}
