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

package v2

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Defaults of upstream's autoscaling/v2 API, and of KEP-5679.
const (
	DefaultMinReplicas            int32 = 1
	DefaultCPUUtilization         int32 = 80
	DefaultFailureDurationSeconds int64 = 180

	// MinFailureDurationSeconds is the shortest fallback delay accepted:
	// shorter ones would turn a brief provider hiccup into a scaling event.
	MinFailureDurationSeconds int64 = 180

	// MaxFailureDurationSeconds is the longest fallback delay accepted: one
	// day. A metric failing for longer is an outage that a person handles,
	// and a bound this low keeps every failureDurationSeconds far inside
	// time.Duration (about 292 years), so that no arithmetic on it overflows.
	MaxFailureDurationSeconds int64 = 86400
)

// SetDefaults fills the fields that upstream's API server defaults for
// autoscaling/v2, and the fallback's failure duration. A CRD can express
// only static defaults in its schema, so the webhook and the controller call
// this to see an object as the native API server would store it.
func SetDefaults(hpa *HorizontalPodAutoscaler) {
	spec := &hpa.Spec
	if spec.MinReplicas == nil {
		spec.MinReplicas = ptr.To(DefaultMinReplicas)
	}
	if len(spec.Metrics) == 0 {
		spec.Metrics = []MetricSpec{defaultCPUMetric()}
	}
	for i := range spec.Metrics {
		setFallbackDefaults(spec.Metrics[i].External)
	}
	if spec.Behavior != nil {
		spec.Behavior.ScaleUp = ScaleUpRules(spec.Behavior.ScaleUp)
		spec.Behavior.ScaleDown = ScaleDownRules(spec.Behavior.ScaleDown)
	}
}

func defaultCPUMetric() MetricSpec {
	return MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{
				Type:               autoscalingv2.UtilizationMetricType,
				AverageUtilization: ptr.To(DefaultCPUUtilization),
			},
		},
	}
}

func setFallbackDefaults(external *ExternalMetricSource) {
	if external == nil || external.Fallback == nil {
		return
	}
	if external.Fallback.FailureDurationSeconds == nil {
		external.Fallback.FailureDurationSeconds = ptr.To(DefaultFailureDurationSeconds)
	}
	if external.Fallback.Strategy == "" {
		external.Fallback.Strategy = FallbackStrategyStatic
	}
}

// ScaleUpRules returns rules with every unset field taken from upstream's
// scale-up defaults: no stabilization, and per 15 s the larger of +4 pods and
// +100%.
func ScaleUpRules(rules *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	defaults := &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](0),
		SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
	return overlayRules(rules, defaults)
}

// ScaleDownRules returns rules with every unset field taken from upstream's
// scale-down defaults: -100% per 15 s. The stabilization window stays nil
// when unset, because the controller's --horizontal-pod-autoscaler-downscale-
// stabilization flag supplies it.
func ScaleDownRules(rules *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	defaults := &autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
	return overlayRules(rules, defaults)
}

// overlayRules copies the set fields of rules over defaults and returns
// defaults; rules itself is left untouched.
func overlayRules(rules, defaults *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if rules == nil {
		return defaults
	}
	rules = rules.DeepCopy()
	if rules.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = rules.StabilizationWindowSeconds
	}
	if rules.SelectPolicy != nil {
		defaults.SelectPolicy = rules.SelectPolicy
	}
	if rules.Policies != nil {
		defaults.Policies = rules.Policies
	}
	if rules.Tolerance != nil {
		defaults.Tolerance = rules.Tolerance
	}
	return defaults
}
