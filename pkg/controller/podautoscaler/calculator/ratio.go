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
	"errors"
	"math"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/milli"
)

// errNoMatchingReadings is returned when no reading belongs to a pod whose
// request is known, so that utilization has no denominator.
var errNoMatchingReadings = errors.New("no metrics returned matched known pods")

// utilizationRatio compares the readings, as a percentage of the pods'
// requests, with targetUtilization. It also returns that percentage and the
// average reading. Readings of pods without a known request are left out.
func utilizationRatio(readings metrics.PodMetricsInfo, requests map[string]int64, targetUtilization int32) (ratio float64, utilization int32, average int64, err error) {
	var usageTotal, requestTotal, counted int64
	for pod, reading := range readings {
		request, known := requests[pod]
		if !known {
			continue
		}
		usageTotal = milli.Add(usageTotal, reading.Value)
		requestTotal = milli.Add(requestTotal, request)
		counted++
	}
	if requestTotal == 0 {
		return 0, 0, 0, errNoMatchingReadings
	}
	percent := utilizationPercent(usageTotal, requestTotal)
	return float64(percent) / float64(targetUtilization), reportedUtilization(percent), usageTotal / counted, nil
}

// averageUsageRatio compares the average of the readings with targetUsage,
// and returns that average too. readings must not be empty.
func averageUsageRatio(readings metrics.PodMetricsInfo, targetUsage int64) (ratio float64, average int64) {
	var total int64
	for _, reading := range readings {
		total = milli.Add(total, reading.Value)
	}
	average = total / int64(len(readings))
	return float64(average) / float64(targetUsage), average
}

// ceilReplicas rounds a replica count up, into the range an int32 holds: a
// huge reading must propose the most replicas, not wrap around. A negative
// count stays negative, as upstream's: it never scales (the bounds raise it)
// but it decides which metric the ValidMetricFound condition names.
func ceilReplicas(x float64) int32 {
	switch {
	case math.IsNaN(x) || x <= math.MinInt32:
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	default:
		return int32(math.Ceil(x))
	}
}
