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
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
)

// podMeasure is how a pod-based target (Utilization, resource AverageValue,
// Pods) measures readings, for proposeFromPods.
type podMeasure struct {
	// ratio computes the usage ratio of readings to the target.
	ratio func(readings metrics.PodMetricsInfo) (float64, error)
	// scaleDownValue is the reading assumed, on a scale-down, for a pod
	// that has none: as much as keeps the pod from looking idle.
	scaleDownValue func(pod string) int64
}

// proposeFromPods turns the usage ratio of the counted pods into a replica
// count. When pods were held back (unready on a scale-up, or without a
// reading), it redoes the ratio with them counted cautiously, and keeps
// the current replicas if that caution makes the change too small or turns
// it around: an unknown must never drive a scale the known pods do not ask
// for. readings is modified.
func proposeFromPods(current int32, tolerances Tolerances, readings metrics.PodMetricsInfo, groups podGroups, usageRatio float64, measure podMeasure) (int32, error) {
	scaleUpWithUnready := groups.unready.Len() > 0 && usageRatio > 1
	if !scaleUpWithUnready && groups.missing.Len() == 0 {
		if tolerances.IsWithin(usageRatio) {
			return current, nil
		}
		return ceilReplicas(usageRatio * float64(groups.ready)), nil
	}

	countHeldBackPods(readings, groups, usageRatio, scaleUpWithUnready, measure.scaleDownValue)
	newRatio, err := measure.ratio(readings)
	if err != nil {
		return 0, err
	}
	if tolerances.IsWithin(newRatio) || turnsAround(usageRatio, newRatio) {
		return current, nil
	}
	proposal := ceilReplicas(newRatio * float64(len(readings)))
	if (newRatio < 1 && proposal > current) || (newRatio > 1 && proposal < current) {
		// More pods took part than run now (or fewer), so the count moves
		// against the ratio; stay put rather than scale the wrong way.
		return current, nil
	}
	return proposal, nil
}

// countHeldBackPods gives the held-back pods the readings that make a
// proposal most cautious: a pod without a reading uses scaleDownValue on a
// scale-down and nothing on a scale-up; an unready pod uses nothing on a
// scale-up.
func countHeldBackPods(readings metrics.PodMetricsInfo, groups podGroups, usageRatio float64, scaleUpWithUnready bool, scaleDownValue func(pod string) int64) {
	switch {
	case usageRatio < 1:
		for pod := range groups.missing {
			readings[pod] = metrics.PodMetric{Value: scaleDownValue(pod)}
		}
	case usageRatio > 1:
		for pod := range groups.missing {
			readings[pod] = metrics.PodMetric{Value: 0}
		}
	}
	if scaleUpWithUnready {
		for pod := range groups.unready {
			readings[pod] = metrics.PodMetric{Value: 0}
		}
	}
}

// turnsAround tells whether the ratio moved to the other side of 1.
func turnsAround(before, after float64) bool {
	return (before < 1 && after > 1) || (before > 1 && after < 1)
}
