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
