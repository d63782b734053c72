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

func TestIdentifiers(t *testing.T) {
	spec := MetricSpec{Pods: &PodsMetricSource{Metric: MetricIdentifier{Name: "p"}}, External: &ExternalMetricSource{Metric: MetricIdentifier{Name: "e"}}}
	ids := spec.Identifiers()
	if len(ids) != 2 || ids[0].Name != "p" || ids[1].Name != "e" {
		t.Fatalf("spec identifiers = %v", ids)
	}
	ids[1].Source = &MetricSourceReference{APIGroup: "a.example.com"}
	if spec.External.Metric.SourceGroup() != "a.example.com" {
		t.Error("an identifier does not point into the spec")
	}
	status := MetricStatus{Object: &ObjectMetricStatus{Metric: MetricIdentifier{Name: "o"}}}
	if ids := status.Identifiers(); len(ids) != 1 || ids[0] != &status.Object.Metric {
		t.Errorf("status identifiers = %v", ids)
	}
	if ids := (&MetricSpec{}).Identifiers(); len(ids) != 0 {
		t.Errorf("a Resource metric has identifiers: %v", ids)
	}
}
