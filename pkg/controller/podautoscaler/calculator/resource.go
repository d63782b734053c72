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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// errNoCountedReadings is returned when every pod with a reading was held
// back or ignored.
var errNoCountedReadings = errors.New("did not receive metrics for targeted pods (pods might be unready)")

// GetResourceReplicas proposes a replica count for a Utilization target:
// targetUtilization percent of the pods' requests of resource (of the
// named container's, when container is set). The result carries the current
// utilization and the average raw usage.
func (c *Calculator) GetResourceReplicas(ctx context.Context, currentReplicas, targetUtilization int32, resource corev1.ResourceName, tolerances Tolerances, namespace string, selector labels.Selector, container string) (Result, error) {
	readings, timestamp, err := c.metrics.GetResourceMetric(ctx, resource, namespace, selector, container)
	if err != nil {
		return Result{}, fmt.Errorf("unable to get metrics for resource %s: %w", resource, err)
	}
	pods, groups, err := c.countedReadings(namespace, selector, readings, resource)
	if err != nil {
		return Result{}, err
	}
	requests, err := c.podRequests(pods, container, resource)
	if err != nil {
		return Result{}, err
	}
	usageRatio, utilization, average, err := utilizationRatio(readings, requests, targetUtilization)
	if err != nil {
		return Result{}, err
	}

	replicas, err := proposeFromPods(currentReplicas, tolerances, readings, groups, usageRatio, podMeasure{
		ratio: func(readings metrics.PodMetricsInfo) (float64, error) {
			ratio, _, _, err := utilizationRatio(readings, requests, targetUtilization)
			return ratio, err
		},
		// A pod without a reading is taken as using its whole request, or
		// the target when that is above 100%, so it never looks idle.
		scaleDownValue: func(pod string) int64 {
			return mulDivSat(requests[pod], int64(max(100, targetUtilization)), 100)
		},
	})
	if err != nil {
		return Result{}, err
	}
	return Result{Replicas: replicas, Utilization: utilization, RawUsage: average, Timestamp: timestamp}, nil
}

// GetRawResourceReplicas proposes a replica count for an AverageValue target
// on resource: targetUsage (a milli-value) per pod.
func (c *Calculator) GetRawResourceReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, resource corev1.ResourceName, tolerances Tolerances, namespace string, selector labels.Selector, container string) (Result, error) {
	readings, timestamp, err := c.metrics.GetResourceMetric(ctx, resource, namespace, selector, container)
	if err != nil {
		return Result{}, fmt.Errorf("unable to get metrics for resource %s: %w", resource, err)
	}
	replicas, average, err := c.averageValueReplicas(readings, currentReplicas, targetUsage, tolerances, namespace, selector, resource)
	if err != nil {
		return Result{}, err
	}
	return Result{Replicas: replicas, RawUsage: average, Timestamp: timestamp}, nil
}

// averageValueReplicas proposes a replica count for a per-pod average target
// over pod readings (a resource when resource is set, else a Pods metric).
func (c *Calculator) averageValueReplicas(readings metrics.PodMetricsInfo, currentReplicas int32, targetUsage int64, tolerances Tolerances, namespace string, selector labels.Selector, resource corev1.ResourceName) (replicas int32, average int64, err error) {
	_, groups, err := c.countedReadings(namespace, selector, readings, resource)
	if err != nil {
		return 0, 0, err
	}
	usageRatio, average := averageUsageRatio(readings, targetUsage)
	replicas, err = proposeFromPods(currentReplicas, tolerances, readings, groups, usageRatio, podMeasure{
		ratio: func(readings metrics.PodMetricsInfo) (float64, error) {
			ratio, _ := averageUsageRatio(readings, targetUsage)
			return ratio, nil
		},
		// A pod without a reading is taken as right on target.
		scaleDownValue: func(string) int64 { return targetUsage },
	})
	return replicas, average, err
}

// countedReadings lists the pods selector matches, groups them, and leaves
// in readings only those of the pods that count as they are. It fails when
// none is left.
func (c *Calculator) countedReadings(namespace string, selector labels.Selector, readings metrics.PodMetricsInfo, resource corev1.ResourceName) ([]*podrecord.Pod, podGroups, error) {
	pods, err := c.listPods(namespace, selector)
	if err != nil {
		return nil, podGroups{}, err
	}
	groups := c.groupPods(pods, readings, resource)
	dropReadings(readings, groups.ignored)
	dropReadings(readings, groups.unready)
	if len(readings) == 0 {
		return nil, podGroups{}, errNoCountedReadings
	}
	return pods, groups, nil
}
