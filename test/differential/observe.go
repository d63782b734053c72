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

package differential

import (
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
)

func metricsText(ms []autoscalingv2.MetricStatus) string {
	var parts []string
	for _, m := range ms {
		var name string
		var cur autoscalingv2.MetricValueStatus
		switch m.Type {
		case autoscalingv2.ResourceMetricSourceType:
			if m.Resource != nil {
				name, cur = string(m.Resource.Name), m.Resource.Current
			}
		case autoscalingv2.ContainerResourceMetricSourceType:
			if m.ContainerResource != nil {
				name, cur = string(m.ContainerResource.Name), m.ContainerResource.Current
			}
		case autoscalingv2.PodsMetricSourceType:
			if m.Pods != nil {
				name, cur = m.Pods.Metric.Name, m.Pods.Current
			}
		case autoscalingv2.ObjectMetricSourceType:
			if m.Object != nil {
				name, cur = m.Object.Metric.Name, m.Object.Current
			}
		case autoscalingv2.ExternalMetricSourceType:
			if m.External != nil {
				name, cur = m.External.Metric.Name, m.External.Current
			}
		}
		s := fmt.Sprintf("%s/%s", m.Type, name)
		if cur.AverageUtilization != nil {
			s += fmt.Sprintf(" util=%d", *cur.AverageUtilization)
		}
		if cur.AverageValue != nil {
			s += " avg=" + cur.AverageValue.String()
		}
		if cur.Value != nil {
			s += " value=" + cur.Value.String()
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, "; ")
}

// seqDiff is the first step at which two runs differ, and how.
type seqDiff struct {
	Step   int
	Fields []string
}

// diffObservations compares two runs step by step and returns the first
// difference, or nil. Later steps are not compared: one difference changes
// everything after it.
func diffObservations(up, ours []observation) *seqDiff {
	for i := range min(len(up), len(ours)) {
		if f := diffObservation(up[i], ours[i]); len(f) > 0 {
			return &seqDiff{Step: i, Fields: f}
		}
	}
	return nil
}

func diffObservation(up, ours observation) []string {
	var d []string
	if up.Scale != ours.Scale {
		d = append(d, "scale")
	}
	if up.Status.CurrentReplicas != ours.Status.CurrentReplicas {
		d = append(d, "currentReplicas")
	}
	if up.Status.DesiredReplicas != ours.Status.DesiredReplicas {
		d = append(d, "desiredReplicas")
	}
	if !equality.Semantic.DeepEqual(up.Status.LastScaleTime, ours.Status.LastScaleTime) {
		d = append(d, "lastScaleTime")
	}
	if !equality.Semantic.DeepEqual(up.Status.ObservedGeneration, ours.Status.ObservedGeneration) {
		d = append(d, "observedGeneration")
	}
	if !equality.Semantic.DeepEqual(up.Status.CurrentMetrics, ours.Status.CurrentMetrics) {
		d = append(d, "currentMetrics")
	}
	d = append(d, diffConditions(up.Status.Conditions, ours.Status.Conditions)...)
	if !equality.Semantic.DeepEqual(up.Events, ours.Events) {
		d = append(d, "events")
	}
	return append(d, diffTwins(up.Twin, ours.Twin)...)
}

// diffTwins names what differs between the twin HPA's observations, as
// "twin." and the field.
func diffTwins(up, ours *observation) []string {
	if up == nil || ours == nil {
		if up != ours {
			return []string{"twin"}
		}
		return nil
	}
	var d []string
	for _, f := range diffObservation(*up, *ours) {
		d = append(d, "twin."+f)
	}
	return d
}

// diffConditions names each condition type that differs, with the part
// that differs: "AbleToScale.reason", "ScalingActive.message", ...
func diffConditions(up, ours []autoscalingv2.HorizontalPodAutoscalerCondition) []string {
	find := func(cs []autoscalingv2.HorizontalPodAutoscalerCondition, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
		for i := range cs {
			if cs[i].Type == t {
				return &cs[i]
			}
		}
		return nil
	}
	var types []autoscalingv2.HorizontalPodAutoscalerConditionType
	for _, c := range append(append([]autoscalingv2.HorizontalPodAutoscalerCondition(nil), up...), ours...) {
		if !containsType(types, c.Type) {
			types = append(types, c.Type)
		}
	}
	var d []string
	for _, t := range types {
		u, o := find(up, t), find(ours, t)
		switch {
		case u == nil || o == nil:
			d = append(d, string(t)+".presence")
		case u.Status != o.Status:
			d = append(d, string(t)+".status")
		case u.Reason != o.Reason:
			d = append(d, string(t)+".reason")
		case u.Message != o.Message:
			d = append(d, string(t)+".message")
		case !u.LastTransitionTime.Equal(&o.LastTransitionTime):
			d = append(d, string(t)+".lastTransitionTime")
		}
	}
	if len(d) == 0 && !equality.Semantic.DeepEqual(up, ours) {
		d = append(d, "conditions.order")
	}
	return d
}

func containsType(ts []autoscalingv2.HorizontalPodAutoscalerConditionType, t autoscalingv2.HorizontalPodAutoscalerConditionType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
