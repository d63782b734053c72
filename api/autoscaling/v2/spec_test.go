package v2

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

func TestSpecPredicates(t *testing.T) {
	object := MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &ObjectMetricSource{}}
	pods := MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &PodsMetricSource{}}
	resource := MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{}}
	external := MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &ExternalMetricSource{}}
	withFallback := MetricSpec{Type: autoscalingv2.ExternalMetricSourceType,
		External: &ExternalMetricSource{Fallback: &ExternalMetricFallback{Replicas: 2}}}

	cases := []struct {
		name                       string
		metrics                    []MetricSpec
		wantObjectOrExternal, want bool
	}{
		{name: "no metric has neither"},
		{name: "pod metrics only come from the pods", metrics: []MetricSpec{pods, resource}},
		{name: "an Object metric comes from outside the pods", metrics: []MetricSpec{resource, object}, wantObjectOrExternal: true},
		{name: "an External metric without fallback comes from outside the pods", metrics: []MetricSpec{external},
			wantObjectOrExternal: true},
		{name: "an External metric with a fallback has one", metrics: []MetricSpec{pods, withFallback},
			wantObjectOrExternal: true, want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := HorizontalPodAutoscalerSpec{Metrics: tc.metrics}
			if got := spec.HasObjectOrExternalMetric(); got != tc.wantObjectOrExternal {
				t.Errorf("HasObjectOrExternalMetric = %v, want %v", got, tc.wantObjectOrExternal)
			}
			if got := spec.HasFallback(); got != tc.want {
				t.Errorf("HasFallback = %v, want %v", got, tc.want)
			}
		})
	}
}
