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

package framework

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// AverageValueExternalMetric is an External metric with an AverageValue
// target, and a fallback when fallback is not nil.
func AverageValueExternalMetric(metric, averageValue string, fallback *v2.ExternalMetricFallback) v2.MetricSpec {
	q := resource.MustParse(averageValue)
	return v2.MetricSpec{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricSource{
			Metric:   v2.MetricIdentifier{Name: metric},
			Target:   autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
			Fallback: fallback,
		},
	}
}

// Fallback is a fallback of replicas after failureDuration (whole
// seconds).
func Fallback(replicas int32, failureDuration time.Duration) *v2.ExternalMetricFallback {
	return &v2.ExternalMetricFallback{
		FailureDurationSeconds: ptr.To(int64(failureDuration / time.Second)),
		Replicas:               replicas,
	}
}

// MultiMetricHPA is an HPA of Deployment target on metrics.
func MultiMetricHPA(name, target string, minReplicas, maxReplicas int32, metrics ...v2.MetricSpec) *v2.HorizontalPodAutoscaler {
	hpa := ExternalHPA(name, target, "unused", autoscalingv2.AverageValueMetricType, "1", minReplicas, maxReplicas)
	hpa.Spec.Metrics = metrics
	return hpa
}

// ExternalMetricStatus returns the status entry of External metric name,
// or nil. Entries are found by name, not by position, as the controller
// matches them.
func ExternalMetricStatus(hpa *v2.HorizontalPodAutoscaler, name string) *v2.ExternalMetricStatus {
	for i := range hpa.Status.CurrentMetrics {
		if ext := hpa.Status.CurrentMetrics[i].External; ext != nil && ext.Metric.Name == name {
			return ext
		}
	}
	return nil
}
