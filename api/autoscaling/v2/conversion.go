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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kind is the kind of both the native and the extended HPA.
const kind = "HorizontalPodAutoscaler"

// convertTypeMeta moves a TypeMeta that names the HPA kind of group from to
// the same kind of group to, so that a converted object never claims the
// other API's apiVersion (an API server refuses a body whose apiVersion is
// not the endpoint's). An empty TypeMeta, as typed clients return, stays
// empty; any other value is kept as it is.
func convertTypeMeta(in metav1.TypeMeta, from, to string) metav1.TypeMeta {
	if in.APIVersion == from && in.Kind == kind {
		in.APIVersion = to
	}
	return in
}

// FromNative converts a native autoscaling/v2 HPA into the extended type.
// Every field is kept; the extension's fields stay unset unless the native
// types carry them (native_extension.go). An autoscaling/v2
// apiVersion becomes this package's. The result shares no memory with in.
func FromNative(in *autoscalingv2.HorizontalPodAutoscaler) *HorizontalPodAutoscaler {
	in = in.DeepCopy()
	out := &HorizontalPodAutoscaler{
		TypeMeta:   convertTypeMeta(in.TypeMeta, autoscalingv2.SchemeGroupVersion.String(), SchemeGroupVersion.String()),
		ObjectMeta: in.ObjectMeta,
		Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: in.Spec.ScaleTargetRef,
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
			Behavior:       BehaviorFromNative(in.Spec.Behavior),
		},
		Status: HorizontalPodAutoscalerStatus{
			ObservedGeneration: in.Status.ObservedGeneration,
			LastScaleTime:      in.Status.LastScaleTime,
			CurrentReplicas:    in.Status.CurrentReplicas,
			DesiredReplicas:    in.Status.DesiredReplicas,
			Conditions:         in.Status.Conditions,
		},
	}
	if in.Spec.Metrics != nil {
		out.Spec.Metrics = make([]MetricSpec, len(in.Spec.Metrics))
		for i, m := range in.Spec.Metrics {
			out.Spec.Metrics[i] = metricSpecFromNative(m)
		}
	}
	if in.Status.CurrentMetrics != nil {
		out.Status.CurrentMetrics = make([]MetricStatus, len(in.Status.CurrentMetrics))
		for i, m := range in.Status.CurrentMetrics {
			out.Status.CurrentMetrics[i] = metricStatusFromNative(m)
		}
	}
	return out
}

// ToNative converts the extended type into a native autoscaling/v2 HPA. The
// extension's fields (fallback, fallback status, metric source) are dropped unless the
// native types carry them (native_extension.go), and so are
// behavior.syncPeriodSeconds and status.lastScaleDecision, which no native
// type carries in v1.36;
// everything else is kept, and this package's apiVersion
// becomes autoscaling/v2. The result shares no memory with in.
func ToNative(in *HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	in = in.DeepCopy()
	out := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   convertTypeMeta(in.TypeMeta, SchemeGroupVersion.String(), autoscalingv2.SchemeGroupVersion.String()),
		ObjectMeta: in.ObjectMeta,
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: in.Spec.ScaleTargetRef,
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
			Behavior:       in.Spec.Behavior.Native(),
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			ObservedGeneration: in.Status.ObservedGeneration,
			LastScaleTime:      in.Status.LastScaleTime,
			CurrentReplicas:    in.Status.CurrentReplicas,
			DesiredReplicas:    in.Status.DesiredReplicas,
			Conditions:         in.Status.Conditions,
		},
	}
	if in.Spec.Metrics != nil {
		out.Spec.Metrics = make([]autoscalingv2.MetricSpec, len(in.Spec.Metrics))
		for i, m := range in.Spec.Metrics {
			out.Spec.Metrics[i] = metricSpecToNative(m)
		}
	}
	if in.Status.CurrentMetrics != nil {
		out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(in.Status.CurrentMetrics))
		for i, m := range in.Status.CurrentMetrics {
			out.Status.CurrentMetrics[i] = metricStatusToNative(m)
		}
	}
	return out
}

func metricSpecFromNative(in autoscalingv2.MetricSpec) MetricSpec {
	out := MetricSpec{
		Type:              in.Type,
		Object:            objectSourceFromNative(in.Object),
		Pods:              podsSourceFromNative(in.Pods),
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = externalSourceFromNative(in.External)
	}
	return out
}

func metricSpecToNative(in MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{
		Type:              in.Type,
		Object:            objectSourceToNative(in.Object),
		Pods:              podsSourceToNative(in.Pods),
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = externalSourceToNative(in.External)
	}
	return out
}

func metricStatusFromNative(in autoscalingv2.MetricStatus) MetricStatus {
	out := MetricStatus{
		Type:              in.Type,
		Object:            objectStatusFromNative(in.Object),
		Pods:              podsStatusFromNative(in.Pods),
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = externalStatusFromNative(in.External)
	}
	return out
}

func metricStatusToNative(in MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{
		Type:              in.Type,
		Object:            objectStatusToNative(in.Object),
		Pods:              podsStatusToNative(in.Pods),
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = externalStatusToNative(in.External)
	}
	return out
}
