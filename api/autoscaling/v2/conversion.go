package v2

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// FromNative converts a native autoscaling/v2 HPA into the extended type.
// Every field is kept; the extension's fields stay unset. The result shares
// no memory with in.
func FromNative(in *autoscalingv2.HorizontalPodAutoscaler) *HorizontalPodAutoscaler {
	in = in.DeepCopy()
	out := &HorizontalPodAutoscaler{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: in.Spec.ScaleTargetRef,
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
			Behavior:       in.Spec.Behavior,
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
// extension's fields (fallback, fallback status) have no native field and
// are dropped; everything else is kept. The result shares no memory with in.
func ToNative(in *HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	in = in.DeepCopy()
	out := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: in.Spec.ScaleTargetRef,
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
			Behavior:       in.Spec.Behavior,
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
		Object:            in.Object,
		Pods:              in.Pods,
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = &ExternalMetricSource{Metric: in.External.Metric, Target: in.External.Target}
	}
	return out
}

func metricSpecToNative(in MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{
		Type:              in.Type,
		Object:            in.Object,
		Pods:              in.Pods,
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = &autoscalingv2.ExternalMetricSource{Metric: in.External.Metric, Target: in.External.Target}
	}
	return out
}

func metricStatusFromNative(in autoscalingv2.MetricStatus) MetricStatus {
	out := MetricStatus{
		Type:              in.Type,
		Object:            in.Object,
		Pods:              in.Pods,
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = &ExternalMetricStatus{Metric: in.External.Metric, Current: in.External.Current}
	}
	return out
}

func metricStatusToNative(in MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{
		Type:              in.Type,
		Object:            in.Object,
		Pods:              in.Pods,
		Resource:          in.Resource,
		ContainerResource: in.ContainerResource,
	}
	if in.External != nil {
		out.External = &autoscalingv2.ExternalMetricStatus{Metric: in.External.Metric, Current: in.External.Current}
	}
	return out
}
