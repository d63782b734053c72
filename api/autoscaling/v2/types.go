package v2

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HorizontalPodAutoscaler is the autoscaling/v2 HorizontalPodAutoscaler with
// the fallback of KEP-5679 on External metrics.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=horizontalpodautoscalers,singular=horizontalpodautoscaler,shortName=xhpa,categories=all;autoscaling
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Reference",type=string,JSONPath=`.spec.scaleTargetRef.name`
// +kubebuilder:printcolumn:name="MinPods",type=integer,JSONPath=`.spec.minReplicas`
// +kubebuilder:printcolumn:name="MaxPods",type=integer,JSONPath=`.spec.maxReplicas`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.status.currentReplicas`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Fallback",type=string,JSONPath=`.status.conditions[?(@.type=="ExternalMetricFallbackActive")].status`
// +kubebuilder:printcolumn:name="ScaledToZero",type=string,JSONPath=`.status.conditions[?(@.type=="ScaledToZero")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type HorizontalPodAutoscaler struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the specification for the behaviour of the autoscaler.
	// +optional
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty"`

	// status is the current information about the autoscaler.
	// +optional
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

// HorizontalPodAutoscalerSpec is autoscaling/v2's spec with MetricSpec
// extended.
type HorizontalPodAutoscalerSpec struct {
	// scaleTargetRef points to the target resource to scale.
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference `json:"scaleTargetRef"`

	// minReplicas is the lower limit for the number of replicas. It may be 0
	// when the HPAScaleToZero gate is on and at least one Object or External
	// metric is configured.
	// +optional
	// +kubebuilder:default=1
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the upper limit for the number of replicas.
	MaxReplicas int32 `json:"maxReplicas"`

	// metrics contains the specifications used to calculate the desired
	// replica count; the largest proposal wins.
	// +listType=atomic
	// +optional
	Metrics []MetricSpec `json:"metrics,omitempty"`

	// behavior configures the scaling behavior in both directions.
	// +optional
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// MetricSpec is autoscaling/v2's MetricSpec whose External source may carry a
// fallback.
type MetricSpec struct {
	// type is the type of metric source: "ContainerResource", "External",
	// "Object", "Pods" or "Resource".
	Type autoscalingv2.MetricSourceType `json:"type"`

	// +optional
	Object *autoscalingv2.ObjectMetricSource `json:"object,omitempty"`
	// +optional
	Pods *autoscalingv2.PodsMetricSource `json:"pods,omitempty"`
	// +optional
	Resource *autoscalingv2.ResourceMetricSource `json:"resource,omitempty"`
	// +optional
	ContainerResource *autoscalingv2.ContainerResourceMetricSource `json:"containerResource,omitempty"`
	// +optional
	External *ExternalMetricSource `json:"external,omitempty"`
}

// ExternalMetricSource is a metric not associated with any Kubernetes object,
// with an optional fallback for when it cannot be fetched.
type ExternalMetricSource struct {
	// metric identifies the target metric by name and selector.
	Metric autoscalingv2.MetricIdentifier `json:"metric"`

	// target specifies the target value for the given metric.
	Target autoscalingv2.MetricTarget `json:"target"`

	// fallback is the replica count this metric proposes once it has failed
	// continuously for failureDurationSeconds. Without it, a failing metric
	// blocks scale-down as upstream does.
	// +optional
	Fallback *ExternalMetricFallback `json:"fallback,omitempty"`
}

// ExternalMetricFallback is the fallback of KEP-5679.
type ExternalMetricFallback struct {
	// failureDurationSeconds is how long the metric must fail without a
	// single success before the fallback applies. At least 180.
	// +optional
	// +kubebuilder:default=180
	FailureDurationSeconds *int64 `json:"failureDurationSeconds,omitempty"`

	// replicas is the desired replica count this metric proposes while in
	// fallback. At least 1.
	Replicas int32 `json:"replicas"`
}

// HorizontalPodAutoscalerStatus is autoscaling/v2's status with MetricStatus
// extended.
type HorizontalPodAutoscalerStatus struct {
	// observedGeneration is the most recent generation observed by this autoscaler.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`

	// lastScaleTime is the last time the autoscaler changed the replica count.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// currentReplicas is the replica count last seen by the autoscaler.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`

	// desiredReplicas is the replica count last computed by the autoscaler.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas"`

	// currentMetrics is the last read state of the metrics used by this autoscaler.
	// +listType=atomic
	// +optional
	CurrentMetrics []MetricStatus `json:"currentMetrics"`

	// conditions describe the current state of the autoscaler.
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []autoscalingv2.HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// MetricStatus is autoscaling/v2's MetricStatus whose External status carries
// the fallback state.
type MetricStatus struct {
	// type is the type of metric source.
	Type autoscalingv2.MetricSourceType `json:"type"`

	// +optional
	Object *autoscalingv2.ObjectMetricStatus `json:"object,omitempty"`
	// +optional
	Pods *autoscalingv2.PodsMetricStatus `json:"pods,omitempty"`
	// +optional
	Resource *autoscalingv2.ResourceMetricStatus `json:"resource,omitempty"`
	// +optional
	ContainerResource *autoscalingv2.ContainerResourceMetricStatus `json:"containerResource,omitempty"`
	// +optional
	External *ExternalMetricStatus `json:"external,omitempty"`
}

// ExternalMetricStatus is the state of an External metric, including its
// fallback state when a fallback is configured.
type ExternalMetricStatus struct {
	// metric identifies the target metric by name and selector.
	Metric autoscalingv2.MetricIdentifier `json:"metric"`

	// current contains the current value of the metric; empty while it fails.
	Current autoscalingv2.MetricValueStatus `json:"current"`

	// fallbackStatus says whether the metric is fetched normally or replaced
	// by its fallback. Set only when a fallback is configured.
	// +optional
	FallbackStatus FallbackStatus `json:"fallbackStatus,omitempty"`

	// firstFailureTime is when the current run of failed fetches began; nil
	// after a success.
	// +optional
	FirstFailureTime *metav1.Time `json:"firstFailureTime,omitempty"`
}

// FallbackStatus is the state of an External metric with a fallback.
// +kubebuilder:validation:Enum=Normal;Fallback
type FallbackStatus string

const (
	// FallbackStatusNormal means the metric was fetched.
	FallbackStatusNormal FallbackStatus = "Normal"
	// FallbackStatusFallback means the metric has failed for at least
	// failureDurationSeconds and proposes its fallback replicas.
	FallbackStatusFallback FallbackStatus = "Fallback"
)

// Condition types this API adds to upstream's AbleToScale, ScalingActive and
// ScalingLimited.
const (
	// ScaledToZero is True while the workload is at zero replicas because
	// this autoscaler put it there (KEP-2021). Upstream v1.36 declares it.
	ScaledToZero = autoscalingv2.ScaledToZero
	// ExternalMetricFallbackActive is True while any External metric
	// proposes its fallback replicas (KEP-5679).
	ExternalMetricFallbackActive autoscalingv2.HorizontalPodAutoscalerConditionType = "ExternalMetricFallbackActive"
)

// HorizontalPodAutoscalerList is a list of HorizontalPodAutoscalers.
//
// +kubebuilder:object:root=true
type HorizontalPodAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []HorizontalPodAutoscaler `json:"items"`
}
