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

// The types below repeat autoscaling/v2's Pods and Object metric types
// (spec and status) with the metric identifier of KEP-6382, which names the
// API group a metric is fetched from. Their JSON is upstream's plus
// metric.source.

// MetricIdentifier names a metric, narrows it with a selector and, with the
// HPAMetricSource feature gate, says which API group serves it.
type MetricIdentifier struct {
	// name is the name of the given metric.
	Name string `json:"name"`

	// selector is the string-encoded form of a standard kubernetes label
	// selector for the given metric. When set, it is passed as an
	// additional parameter to the metrics server for more specific
	// metrics scoping; when unset, just the metricName is used.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// source routes the metric to the metrics API that the APIService of
	// another API group serves, instead of the default one of its type
	// (custom.metrics.k8s.io for Pods and Object, external.metrics.k8s.io
	// for External). The provider must answer with the default API's wire
	// format. Resource metrics have no source. It requires the
	// HPAMetricSource feature gate (KEP-6382); with the gate off the
	// controller fetches from the default API.
	// +optional
	Source *MetricSourceReference `json:"source,omitempty"`
}

// MetricSourceReference names the API group of a metrics provider.
// +kubebuilder:validation:XValidation:rule=`!(self.apiGroup in ['custom.metrics.k8s.io', 'external.metrics.k8s.io', 'metrics.k8s.io'])`,message=`must not be a default metrics API group: omit source to use it`,fieldPath=`.apiGroup`
type MetricSourceReference struct {
	// apiGroup is the API group whose APIService serves the metric, a DNS
	// subdomain such as metrics.example.com. It may not be one of the
	// default metrics API groups (custom.metrics.k8s.io,
	// external.metrics.k8s.io, metrics.k8s.io), nor one of Kubernetes' own
	// (a single label such as apps, or a group under k8s.io or
	// kubernetes.io): the controller reads the source with its own
	// credentials.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	APIGroup string `json:"apiGroup"`
}

// SourceGroup returns the API group the identifier routes to; empty for the
// default API of its type.
func (id *MetricIdentifier) SourceGroup() string {
	if id == nil || id.Source == nil {
		return ""
	}
	return id.Source.APIGroup
}

// PodsMetricSource is a metric describing each pod of the scale target,
// averaged over them before it is compared with the target value.
type PodsMetricSource struct {
	// metric identifies the target metric by name, selector and source.
	// +kubebuilder:validation:XValidation:rule=`!has(self.source) || self.source.apiGroup in ['custom.metrics.k8s.io', 'external.metrics.k8s.io', 'metrics.k8s.io'] || (self.source.apiGroup.contains('.') && !(self.source.apiGroup in ['k8s.io', 'kubernetes.io'] || self.source.apiGroup.endsWith('.k8s.io') || self.source.apiGroup.endsWith('.kubernetes.io')))`,message=`must be the API group of a metrics provider, not one of Kubernetes' own (a single label such as apps, or a group under k8s.io or kubernetes.io)`,fieldPath=`.source.apiGroup`
	Metric MetricIdentifier `json:"metric"`

	// target specifies the target value for the given metric.
	Target autoscalingv2.MetricTarget `json:"target"`
}

// ObjectMetricSource is a metric describing a single Kubernetes object.
type ObjectMetricSource struct {
	// describedObject specifies the description of the object.
	DescribedObject autoscalingv2.CrossVersionObjectReference `json:"describedObject"`

	// target specifies the target value for the given metric.
	Target autoscalingv2.MetricTarget `json:"target"`

	// metric identifies the target metric by name, selector and source.
	// +kubebuilder:validation:XValidation:rule=`!has(self.source) || self.source.apiGroup in ['custom.metrics.k8s.io', 'external.metrics.k8s.io', 'metrics.k8s.io'] || (self.source.apiGroup.contains('.') && !(self.source.apiGroup in ['k8s.io', 'kubernetes.io'] || self.source.apiGroup.endsWith('.k8s.io') || self.source.apiGroup.endsWith('.kubernetes.io')))`,message=`must be the API group of a metrics provider, not one of Kubernetes' own (a single label such as apps, or a group under k8s.io or kubernetes.io)`,fieldPath=`.source.apiGroup`
	Metric MetricIdentifier `json:"metric"`
}

// PodsMetricStatus is the current value of a Pods metric.
type PodsMetricStatus struct {
	// metric identifies the target metric by name, selector and source.
	Metric MetricIdentifier `json:"metric"`

	// current contains the current value for the given metric.
	Current autoscalingv2.MetricValueStatus `json:"current"`
}

// ObjectMetricStatus is the current value of an Object metric.
type ObjectMetricStatus struct {
	// metric identifies the target metric by name, selector and source.
	Metric MetricIdentifier `json:"metric"`

	// current contains the current value for the given metric.
	Current autoscalingv2.MetricValueStatus `json:"current"`

	// describedObject specifies the description of the object.
	DescribedObject autoscalingv2.CrossVersionObjectReference `json:"describedObject"`
}
