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
// +kubebuilder:printcolumn:name="Decision",type=string,JSONPath=`.status.lastScaleDecision.reason`
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
//
// The schema markers here and below repeat, for the API server, every rule
// of pkg/apis/autoscaling/validation that holds whatever the feature gates
// say, with the same messages, so that an HPA created while the webhook is
// away is still refused when it is invalid. Rules that depend on a gate stay
// in the webhook alone. The structs reused from k8s.io/api/autoscaling/v2
// cannot carry markers, so their rules sit on the field of ours that holds
// them, as CEL rules naming the nested field.
//
// The API server bounds the estimated cost of the rules, and estimates every
// string of those upstream structs at 3 MiB (they set no maxLength), so the
// rules under metrics cost in proportion to its maxItems. At 10 the costliest
// rule (the container label) is at 94% of the per-rule limit and the whole
// at about 72% of the CRD's: raising maxItems needs cheaper rules first.
// Checks that cost more (the qualified-name syntax of a ContainerResource
// metric's resource name) are left to the webhook.
//
// +kubebuilder:validation:XValidation:rule=`!has(self.minReplicas) || self.maxReplicas >= self.minReplicas`,message="must be greater than or equal to `minReplicas`",fieldPath=`.maxReplicas`
// +kubebuilder:validation:XValidation:rule=`!has(self.minReplicas) || self.minReplicas != 0 || (has(self.metrics) && self.metrics.exists(m, m.type == 'Object' || m.type == 'External'))`,message=`must specify at least one Object or External metric to support scaling to zero replicas`,reason=FieldValueForbidden,fieldPath=`.metrics`
// +kubebuilder:validation:XValidation:rule=`!has(self.syncPeriodSeconds) || !has(self.behavior) || !has(self.behavior.syncPeriodSeconds)`,message=`must not be set with spec.syncPeriodSeconds, which replaces it (KEP-6003): remove it`,reason=FieldValueForbidden,fieldPath=`.behavior.syncPeriodSeconds`
type HorizontalPodAutoscalerSpec struct {
	// scaleTargetRef points to the target resource to scale.
	// +kubebuilder:validation:XValidation:rule=`self.kind.size() > 0`,message=`must specify a kind`,reason=FieldValueRequired,fieldPath=`.kind`
	// +kubebuilder:validation:XValidation:rule=`!(self.kind in ['.', '..']) && !self.kind.matches('[/%]')`,message=`may not be '.' or '..', and may not contain '/' or '%'`,fieldPath=`.kind`
	// +kubebuilder:validation:XValidation:rule=`self.name.size() > 0`,message=`must specify a name`,reason=FieldValueRequired,fieldPath=`.name`
	// +kubebuilder:validation:XValidation:rule=`!(self.name in ['.', '..']) && !self.name.matches('[/%]')`,message=`may not be '.' or '..', and may not contain '/' or '%'`,fieldPath=`.name`
	// +kubebuilder:validation:XValidation:rule=`(oldSelf.hasValue() && oldSelf.value().kind == self.kind && (has(oldSelf.value().apiVersion) ? oldSelf.value().apiVersion : '') == (has(self.apiVersion) ? self.apiVersion : '')) || (has(self.apiVersion) && self.apiVersion.matches('^[^/]+/[^/]*$')) || (self.kind == 'ReplicationController' && !(has(self.apiVersion) && self.apiVersion.matches('/.*/')))`,messageExpression=`has(self.apiVersion) && self.apiVersion.matches('/.*/') ? 'unexpected GroupVersion string: ' + self.apiVersion : 'apiVersion must specify API group'`,fieldPath=`.apiVersion`,optionalOldSelf=true
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference `json:"scaleTargetRef"`

	// minReplicas is the lower limit for the number of replicas: at least 1,
	// or 0 when the HPAScaleToZero gate is on and at least one Object or
	// External metric is configured; at most maxReplicas. Defaults to 1.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the upper limit for the number of replicas: at least 1
	// and at least minReplicas.
	// +kubebuilder:validation:Minimum=1
	MaxReplicas int32 `json:"maxReplicas"`

	// metrics contains the specifications used to calculate the desired
	// replica count; the largest proposal wins. At most 10 (a bound of the
	// CRD alone, so that the API server can bound the cost of its rules).
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Metrics []MetricSpec `json:"metrics,omitempty"`

	// syncPeriodSeconds is the target interval, in seconds, between two
	// reconciles of this HPA: at least 3 and at most 3600 (one hour). A
	// best-effort target, not a deadline. Unset, the controller's
	// --horizontal-pod-autoscaler-sync-period applies. It requires the
	// HPAConfigurableSyncPeriod feature gate (KEP-6003); with the gate off
	// the controller ignores it.
	// +optional
	// +kubebuilder:validation:Minimum=3
	// +kubebuilder:validation:Maximum=3600
	SyncPeriodSeconds *int32 `json:"syncPeriodSeconds,omitempty"`

	// behavior configures the scaling behavior in both directions.
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.stabilizationWindowSeconds) || self.scaleUp.stabilizationWindowSeconds >= 0`,message=`must be greater than or equal to zero`,fieldPath=`.scaleUp.stabilizationWindowSeconds`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.stabilizationWindowSeconds) || self.scaleUp.stabilizationWindowSeconds <= 3600`,message=`must be less than or equal to 3600`,fieldPath=`.scaleUp.stabilizationWindowSeconds`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.selectPolicy) || self.scaleUp.selectPolicy in ['Disabled', 'Max', 'Min']`,message=`supported values: "Disabled", "Max", "Min"`,fieldPath=`.scaleUp.selectPolicy`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.policies) || self.scaleUp.policies.size() > 0`,message=`must specify at least one Policy`,reason=FieldValueRequired,fieldPath=`.scaleUp.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.policies) || self.scaleUp.policies.all(p, p.type in ['Percent', 'Pods'])`,message=`type: supported values: "Percent", "Pods"`,fieldPath=`.scaleUp.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.policies) || self.scaleUp.policies.all(p, p.value > 0)`,message=`value must be greater than zero`,fieldPath=`.scaleUp.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.policies) || self.scaleUp.policies.all(p, p.periodSeconds > 0)`,message=`periodSeconds must be greater than zero`,fieldPath=`.scaleUp.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.policies) || self.scaleUp.policies.all(p, p.periodSeconds <= 1800)`,message=`periodSeconds must be less than or equal to 1800`,fieldPath=`.scaleUp.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleUp) || !has(self.scaleUp.tolerance) || (type(self.scaleUp.tolerance) == int ? self.scaleUp.tolerance >= 0 : !quantity(self.scaleUp.tolerance).isLessThan(quantity('0')))`,message=`must be greater than or equal to 0`,fieldPath=`.scaleUp.tolerance`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.stabilizationWindowSeconds) || self.scaleDown.stabilizationWindowSeconds >= 0`,message=`must be greater than or equal to zero`,fieldPath=`.scaleDown.stabilizationWindowSeconds`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.stabilizationWindowSeconds) || self.scaleDown.stabilizationWindowSeconds <= 3600`,message=`must be less than or equal to 3600`,fieldPath=`.scaleDown.stabilizationWindowSeconds`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.selectPolicy) || self.scaleDown.selectPolicy in ['Disabled', 'Max', 'Min']`,message=`supported values: "Disabled", "Max", "Min"`,fieldPath=`.scaleDown.selectPolicy`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.policies) || self.scaleDown.policies.size() > 0`,message=`must specify at least one Policy`,reason=FieldValueRequired,fieldPath=`.scaleDown.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.policies) || self.scaleDown.policies.all(p, p.type in ['Percent', 'Pods'])`,message=`type: supported values: "Percent", "Pods"`,fieldPath=`.scaleDown.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.policies) || self.scaleDown.policies.all(p, p.value > 0)`,message=`value must be greater than zero`,fieldPath=`.scaleDown.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.policies) || self.scaleDown.policies.all(p, p.periodSeconds > 0)`,message=`periodSeconds must be greater than zero`,fieldPath=`.scaleDown.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.policies) || self.scaleDown.policies.all(p, p.periodSeconds <= 1800)`,message=`periodSeconds must be less than or equal to 1800`,fieldPath=`.scaleDown.policies`
	// +kubebuilder:validation:XValidation:rule=`!has(self.scaleDown) || !has(self.scaleDown.tolerance) || (type(self.scaleDown.tolerance) == int ? self.scaleDown.tolerance >= 0 : !quantity(self.scaleDown.tolerance).isLessThan(quantity('0')))`,message=`must be greater than or equal to 0`,fieldPath=`.scaleDown.tolerance`
	// +optional
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// HorizontalPodAutoscalerBehavior is autoscaling/v2's behavior with the
// per-HPA sync period where KEP-6003 first placed it (deprecated, see
// syncPeriodSeconds).
//
// It repeats upstream's two fields instead of embedding upstream's struct:
// an embedded k8s.io/api type would promote its protobuf methods (Reset,
// String, Marshal) onto this type, and they know nothing of
// syncPeriodSeconds. MetricSpec follows the same pattern.
type HorizontalPodAutoscalerBehavior struct {
	// scaleUp are the rules of scaling up. Unset, the larger of +4 pods
	// and +100% per 15 seconds applies, without stabilization.
	// +optional
	ScaleUp *autoscalingv2.HPAScalingRules `json:"scaleUp,omitempty"`

	// scaleDown are the rules of scaling down. Unset, up to -100% per 15
	// seconds applies, after the controller's scale-down stabilization
	// window (--horizontal-pod-autoscaler-downscale-stabilization, 300
	// seconds by default).
	// +optional
	ScaleDown *autoscalingv2.HPAScalingRules `json:"scaleDown,omitempty"`

	// syncPeriodSeconds is deprecated: KEP-6003 moved it to
	// spec.syncPeriodSeconds, with a floor of 3 seconds. An HPA stored with
	// it keeps its period, 1 to 3600 seconds as it was accepted, while
	// spec.syncPeriodSeconds is unset, and may keep it unchanged through
	// updates; setting or changing it is refused with an error that names
	// spec.syncPeriodSeconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +kubebuilder:validation:XValidation:rule=`oldSelf.hasValue() && oldSelf.value() == self`,message=`moved to spec.syncPeriodSeconds (KEP-6003): set that field instead; an HPA stored with this one may only keep it unchanged`,reason=FieldValueForbidden,optionalOldSelf=true
	SyncPeriodSeconds *int32 `json:"syncPeriodSeconds,omitempty"`
}

// MetricSpec is autoscaling/v2's MetricSpec whose External source may carry a
// fallback. Exactly the source its type names is set.
//
// +kubebuilder:validation:XValidation:rule=`self.type != 'Object' || has(self.object)`,message=`must populate information for the given metric source`,reason=FieldValueRequired,fieldPath=`.object`
// +kubebuilder:validation:XValidation:rule=`!has(self.object) || self.type == 'Object'`,message=`must populate the given metric source only`,reason=FieldValueForbidden,fieldPath=`.object`
// +kubebuilder:validation:XValidation:rule=`self.type != 'Pods' || has(self.pods)`,message=`must populate information for the given metric source`,reason=FieldValueRequired,fieldPath=`.pods`
// +kubebuilder:validation:XValidation:rule=`!has(self.pods) || self.type == 'Pods'`,message=`must populate the given metric source only`,reason=FieldValueForbidden,fieldPath=`.pods`
// +kubebuilder:validation:XValidation:rule=`self.type != 'Resource' || has(self.resource)`,message=`must populate information for the given metric source`,reason=FieldValueRequired,fieldPath=`.resource`
// +kubebuilder:validation:XValidation:rule=`!has(self.resource) || self.type == 'Resource'`,message=`must populate the given metric source only`,reason=FieldValueForbidden,fieldPath=`.resource`
// +kubebuilder:validation:XValidation:rule=`self.type != 'ContainerResource' || has(self.containerResource)`,message=`must populate information for the given metric source`,reason=FieldValueRequired,fieldPath=`.containerResource`
// +kubebuilder:validation:XValidation:rule=`!has(self.containerResource) || self.type == 'ContainerResource'`,message=`must populate the given metric source only`,reason=FieldValueForbidden,fieldPath=`.containerResource`
// +kubebuilder:validation:XValidation:rule=`self.type != 'External' || has(self.external)`,message=`must populate information for the given metric source`,reason=FieldValueRequired,fieldPath=`.external`
// +kubebuilder:validation:XValidation:rule=`!has(self.external) || self.type == 'External'`,message=`must populate the given metric source only`,reason=FieldValueForbidden,fieldPath=`.external`
type MetricSpec struct {
	// type is the type of metric source: "ContainerResource", "External",
	// "Object", "Pods" or "Resource".
	// +kubebuilder:validation:Enum=ContainerResource;External;Object;Pods;Resource
	Type autoscalingv2.MetricSourceType `json:"type"`

	// +kubebuilder:validation:XValidation:rule=`self.describedObject.kind.size() > 0`,message=`must specify a kind`,reason=FieldValueRequired,fieldPath=`.describedObject.kind`
	// +kubebuilder:validation:XValidation:rule=`!(self.describedObject.kind in ['.', '..']) && !self.describedObject.kind.matches('[/%]')`,message=`may not be '.' or '..', and may not contain '/' or '%'`,fieldPath=`.describedObject.kind`
	// +kubebuilder:validation:XValidation:rule=`!has(self.describedObject.apiVersion) || !self.describedObject.apiVersion.matches('/.*/')`,message=`unexpected GroupVersion string`,fieldPath=`.describedObject.apiVersion`
	// +kubebuilder:validation:XValidation:rule=`self.describedObject.name.size() > 0`,message=`must specify a name`,reason=FieldValueRequired,fieldPath=`.describedObject.name`
	// +kubebuilder:validation:XValidation:rule=`!(self.describedObject.name in ['.', '..']) && !self.describedObject.name.matches('[/%]')`,message=`may not be '.' or '..', and may not contain '/' or '%'`,fieldPath=`.describedObject.name`
	// +kubebuilder:validation:XValidation:rule=`self.metric.name.size() > 0`,message=`must specify a metric name`,reason=FieldValueRequired,fieldPath=`.metric.name`
	// +kubebuilder:validation:XValidation:rule=`!(self.metric.name in ['.', '..']) && !self.metric.name.matches('[/%]')`,message=`may not be '.' or '..', and may not contain '/' or '%'`,fieldPath=`.metric.name`
	// +kubebuilder:validation:XValidation:rule=`self.target.type in ['Utilization', 'Value', 'AverageValue']`,message=`must be either Utilization, Value, or AverageValue`,fieldPath=`.target.type`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.value) || (type(self.target.value) == int ? self.target.value > 0 : quantity(self.target.value).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.value`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageValue) || (type(self.target.averageValue) == int ? self.target.averageValue > 0 : quantity(self.target.averageValue).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.averageValue`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageUtilization) || self.target.averageUtilization > 0`,message=`must be greater than 0`,fieldPath=`.target.averageUtilization`
	// +kubebuilder:validation:XValidation:rule=`has(self.target.value) || has(self.target.averageValue)`,message=`must set either a target value or averageValue`,reason=FieldValueRequired,fieldPath=`.target.averageValue`
	// +optional
	Object *ObjectMetricSource `json:"object,omitempty"`
	// +kubebuilder:validation:XValidation:rule=`self.metric.name.size() > 0`,message=`must specify a metric name`,reason=FieldValueRequired,fieldPath=`.metric.name`
	// +kubebuilder:validation:XValidation:rule=`!(self.metric.name in ['.', '..']) && !self.metric.name.matches('[/%]')`,message=`may not be '.' or '..', and may not contain '/' or '%'`,fieldPath=`.metric.name`
	// +kubebuilder:validation:XValidation:rule=`self.target.type in ['Utilization', 'Value', 'AverageValue']`,message=`must be either Utilization, Value, or AverageValue`,fieldPath=`.target.type`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.value) || (type(self.target.value) == int ? self.target.value > 0 : quantity(self.target.value).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.value`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageValue) || (type(self.target.averageValue) == int ? self.target.averageValue > 0 : quantity(self.target.averageValue).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.averageValue`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageUtilization) || self.target.averageUtilization > 0`,message=`must be greater than 0`,fieldPath=`.target.averageUtilization`
	// +kubebuilder:validation:XValidation:rule=`has(self.target.averageValue)`,message=`must specify a positive target averageValue`,reason=FieldValueRequired,fieldPath=`.target.averageValue`
	// +optional
	Pods *PodsMetricSource `json:"pods,omitempty"`
	// +kubebuilder:validation:XValidation:rule=`self.name.size() > 0`,message=`must specify a resource name`,reason=FieldValueRequired,fieldPath=`.name`
	// +kubebuilder:validation:XValidation:rule=`self.target.type in ['Utilization', 'Value', 'AverageValue']`,message=`must be either Utilization, Value, or AverageValue`,fieldPath=`.target.type`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.value) || (type(self.target.value) == int ? self.target.value > 0 : quantity(self.target.value).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.value`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageValue) || (type(self.target.averageValue) == int ? self.target.averageValue > 0 : quantity(self.target.averageValue).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.averageValue`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageUtilization) || self.target.averageUtilization > 0`,message=`must be greater than 0`,fieldPath=`.target.averageUtilization`
	// +kubebuilder:validation:XValidation:rule=`has(self.target.averageUtilization) || has(self.target.averageValue)`,message=`must set either a target raw value or a target utilization`,reason=FieldValueRequired,fieldPath=`.target.averageUtilization`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageUtilization) || !has(self.target.averageValue)`,message=`may not set both a target raw value and a target utilization`,reason=FieldValueForbidden,fieldPath=`.target.averageValue`
	// +optional
	Resource *autoscalingv2.ResourceMetricSource `json:"resource,omitempty"`
	// +kubebuilder:validation:XValidation:rule=`self.name.size() > 0`,message=`must specify a resource name`,reason=FieldValueRequired,fieldPath=`.name`
	// +kubebuilder:validation:XValidation:rule=`self.name.matches('/') || self.name in ['cpu', 'memory', 'ephemeral-storage'] || self.name.startsWith('hugepages-')`,message=`must be a standard resource for containers`,fieldPath=`.name`
	// +kubebuilder:validation:XValidation:rule=`self.container.size() > 0`,message=`must specify a container`,reason=FieldValueRequired,fieldPath=`.container`
	// +kubebuilder:validation:XValidation:rule=`self.container.size() <= 63`,message=`must be no more than 63 characters`,fieldPath=`.container`
	// +kubebuilder:validation:XValidation:rule=`!self.container.startsWith('-') && !self.container.endsWith('-')`,message=`a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,fieldPath=`.container`
	// +kubebuilder:validation:XValidation:rule=`!self.container.matches(r'[^-a-z\d]')`,message=`a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,fieldPath=`.container`
	// +kubebuilder:validation:XValidation:rule=`self.target.type in ['Utilization', 'Value', 'AverageValue']`,message=`must be either Utilization, Value, or AverageValue`,fieldPath=`.target.type`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.value) || (type(self.target.value) == int ? self.target.value > 0 : quantity(self.target.value).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.value`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageValue) || (type(self.target.averageValue) == int ? self.target.averageValue > 0 : quantity(self.target.averageValue).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.averageValue`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageUtilization) || self.target.averageUtilization > 0`,message=`must be greater than 0`,fieldPath=`.target.averageUtilization`
	// +kubebuilder:validation:XValidation:rule=`has(self.target.averageUtilization) || has(self.target.averageValue)`,message=`must set either a target raw value or a target utilization`,reason=FieldValueRequired,fieldPath=`.target.averageUtilization`
	// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageUtilization) || !has(self.target.averageValue)`,message=`may not set both a target raw value and a target utilization`,reason=FieldValueForbidden,fieldPath=`.target.averageValue`
	// +optional
	ContainerResource *autoscalingv2.ContainerResourceMetricSource `json:"containerResource,omitempty"`
	// +optional
	External *ExternalMetricSource `json:"external,omitempty"`
}

// ExternalMetricSource is a metric not associated with any Kubernetes object,
// with an optional fallback for when it cannot be fetched.
//
// +kubebuilder:validation:XValidation:rule=`self.metric.name.size() > 0`,message=`must specify a metric name`,reason=FieldValueRequired,fieldPath=`.metric.name`
// +kubebuilder:validation:XValidation:rule=`!(self.metric.name in ['.', '..']) && !self.metric.name.matches('[/%]')`,message=`may not be '.' or '..', and may not contain '/' or '%'`,fieldPath=`.metric.name`
// +kubebuilder:validation:XValidation:rule=`self.target.type in ['Utilization', 'Value', 'AverageValue']`,message=`must be either Utilization, Value, or AverageValue`,fieldPath=`.target.type`
// +kubebuilder:validation:XValidation:rule=`!has(self.target.value) || (type(self.target.value) == int ? self.target.value > 0 : quantity(self.target.value).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.value`
// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageValue) || (type(self.target.averageValue) == int ? self.target.averageValue > 0 : quantity(self.target.averageValue).isGreaterThan(quantity('0')))`,message=`must be positive`,fieldPath=`.target.averageValue`
// +kubebuilder:validation:XValidation:rule=`!has(self.target.averageUtilization) || self.target.averageUtilization > 0`,message=`must be greater than 0`,fieldPath=`.target.averageUtilization`
// +kubebuilder:validation:XValidation:rule=`has(self.target.value) || has(self.target.averageValue)`,message=`must set either a target value for metric or a per-pod target`,reason=FieldValueRequired,fieldPath=`.target.averageValue`
// +kubebuilder:validation:XValidation:rule=`!has(self.target.value) || !has(self.target.averageValue)`,message=`may not set both a target value for metric and a per-pod target`,reason=FieldValueForbidden,fieldPath=`.target.value`
type ExternalMetricSource struct {
	// metric identifies the target metric by name and selector.
	// +kubebuilder:validation:XValidation:rule=`!has(self.source) || self.source.apiGroup in ['custom.metrics.k8s.io', 'external.metrics.k8s.io', 'metrics.k8s.io'] || (self.source.apiGroup.contains('.') && !(self.source.apiGroup in ['k8s.io', 'kubernetes.io'] || self.source.apiGroup.endsWith('.k8s.io') || self.source.apiGroup.endsWith('.kubernetes.io')))`,message=`must be the API group of a metrics provider, not one of Kubernetes' own (a single label such as apps, or a group under k8s.io or kubernetes.io)`,fieldPath=`.source.apiGroup`
	Metric MetricIdentifier `json:"metric"`

	// target specifies the target value for the given metric.
	Target autoscalingv2.MetricTarget `json:"target"`

	// fallback is the replica count this metric proposes once it has failed
	// continuously for failureDurationSeconds (180 to 86400, default 180);
	// replicas is at least 1. Without it, a failing metric blocks scale-down
	// as upstream does. It requires the HPAExternalMetricFallback feature
	// gate.
	// +optional
	Fallback *ExternalMetricFallback `json:"fallback,omitempty"`
}

// ExternalMetricFallback is the fallback of KEP-5679. It requires the
// HPAExternalMetricFallback feature gate.
type ExternalMetricFallback struct {
	// failureDurationSeconds is how long the metric must fail without a
	// single success before the fallback applies: at least 180 (3 minutes)
	// and at most 86400 (one day). Defaults to 180.
	// +optional
	// +kubebuilder:default=180
	// +kubebuilder:validation:Minimum=180
	// +kubebuilder:validation:Maximum=86400
	FailureDurationSeconds *int64 `json:"failureDurationSeconds,omitempty"`

	// replicas is the desired replica count this metric proposes while in
	// fallback: at least 1. Like any proposal it is then clamped to
	// minReplicas and maxReplicas.
	// +kubebuilder:validation:Minimum=1
	Replicas int32 `json:"replicas"`

	// strategy says how replicas becomes the metric's proposal while in
	// fallback: Static proposes replicas; UseMax proposes the larger of
	// replicas and the current replica count, so that an outage of the
	// provider never scales the workload down; UseMin proposes the
	// smaller, so that an outage never scales it up. Defaults to Static.
	// A strategy other than Static requires the
	// HPAExternalMetricFallbackStrategy feature gate.
	// +optional
	// +kubebuilder:default=Static
	Strategy FallbackStrategy `json:"strategy,omitempty"`
}

// FallbackStrategy is how a fallback's replicas becomes its proposal.
// +kubebuilder:validation:Enum=Static;UseMax;UseMin
type FallbackStrategy string

const (
	// FallbackStrategyStatic proposes replicas, whatever the current count.
	FallbackStrategyStatic FallbackStrategy = "Static"
	// FallbackStrategyUseMax proposes max(replicas, current replicas).
	FallbackStrategyUseMax FallbackStrategy = "UseMax"
	// FallbackStrategyUseMin proposes min(replicas, current replicas).
	FallbackStrategyUseMin FallbackStrategy = "UseMin"
)

// HorizontalPodAutoscalerStatus is autoscaling/v2's status with MetricStatus
// extended.
type HorizontalPodAutoscalerStatus struct {
	// observedGeneration is the most recent generation observed by this autoscaler.
	// +kubebuilder:validation:Minimum=0
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
	// +kubebuilder:validation:XValidation:rule="self.all(c, !has(c.observedGeneration) || c.observedGeneration >= 0)",message="a condition's observedGeneration must be greater than or equal to 0"
	// +optional
	Conditions []autoscalingv2.HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// lastScaleDecision explains the latest scaling decision, a kube-hpa
	// extension (not an upstream API): each metric's proposal, the
	// recommendation, the constraints that applied and the count decided,
	// bounded (at most 10 metrics and 16 constraints). Written by the
	// controller with the KubeHPADecisionTrace feature gate, and only when
	// the decision changes; removed with the gate off.
	// +optional
	LastScaleDecision *HorizontalPodAutoscalerScaleDecision `json:"lastScaleDecision,omitempty"`
}

// MetricStatus is autoscaling/v2's MetricStatus whose External status carries
// the fallback state.
type MetricStatus struct {
	// type is the type of metric source.
	Type autoscalingv2.MetricSourceType `json:"type"`

	// +optional
	Object *ObjectMetricStatus `json:"object,omitempty"`
	// +optional
	Pods *PodsMetricStatus `json:"pods,omitempty"`
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
	Metric MetricIdentifier `json:"metric"`

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
