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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// ResourceUtilization is a Resource metric at percent of the pods'
// requests of name: the HPA of the HPA documentation's walkthrough is
// ResourceUtilization(corev1.ResourceCPU, 50).
func ResourceUtilization(name corev1.ResourceName, percent int32) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: name, Target: autoscalingv2.MetricTarget{
			Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)}},
	}
}

// ResourceAverageValue is a Resource metric at an average of value a pod.
func ResourceAverageValue(name corev1.ResourceName, value string) v2.MetricSpec {
	q := resource.MustParse(value)
	return v2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: name, Target: autoscalingv2.MetricTarget{
			Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}},
	}
}

// ContainerUtilization is a ContainerResource metric at percent of the
// requests of name of container alone.
func ContainerUtilization(container string, name corev1.ResourceName, percent int32) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ContainerResourceMetricSourceType,
		ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: name, Container: container,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)}},
	}
}

// ScaleDownWindow sets the scale-down stabilization window: the controller's
// default (--horizontal-pod-autoscaler-downscale-stabilization, 5 minutes)
// is longer than a spec should wait.
func ScaleDownWindow(hpa *v2.HorizontalPodAutoscaler, seconds int32) *v2.HorizontalPodAutoscaler {
	NoScaleDownStabilization(hpa)
	hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds = ptr.To(seconds)
	return hpa
}
