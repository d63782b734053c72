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
)

// HasObjectOrExternalMetric reports whether some metric comes from outside
// the target's pods. KEP-2021 allows minReplicas 0 only then, since only
// such a metric can ask for replicas when there are no pods; validation and
// the controller both ask this.
func (s *HorizontalPodAutoscalerSpec) HasObjectOrExternalMetric() bool {
	for _, m := range s.Metrics {
		if m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType {
			return true
		}
	}
	return false
}

// HasFallback reports whether some External metric has a fallback
// configured (KEP-5679), whatever the feature gate says.
func (s *HorizontalPodAutoscalerSpec) HasFallback() bool {
	for _, m := range s.Metrics {
		if m.External != nil && m.External.Fallback != nil {
			return true
		}
	}
	return false
}

// Identifiers returns the metric identifiers of the Pods, Object and
// External members of m that are set: one in a valid spec, more in one
// stored without validation. They point into m.
func (m *MetricSpec) Identifiers() []*MetricIdentifier {
	var ids []*MetricIdentifier
	if m.Pods != nil {
		ids = append(ids, &m.Pods.Metric)
	}
	if m.Object != nil {
		ids = append(ids, &m.Object.Metric)
	}
	if m.External != nil {
		ids = append(ids, &m.External.Metric)
	}
	return ids
}

// Identifiers returns the metric identifiers of the Pods, Object and
// External members of m that are set, pointing into m.
func (m *MetricStatus) Identifiers() []*MetricIdentifier {
	var ids []*MetricIdentifier
	if m.Pods != nil {
		ids = append(ids, &m.Pods.Metric)
	}
	if m.Object != nil {
		ids = append(ids, &m.Object.Metric)
	}
	if m.External != nil {
		ids = append(ids, &m.External.Metric)
	}
	return ids
}
