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

package fallback

import (
	"reflect"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func externalMetric(src *v2.ExternalMetricSource) v2.MetricSpec {
	return v2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: src}
}

func entry(name string, status v2.FallbackStatus, firstFailure *time.Time) v2.MetricStatus {
	s := stored(status, firstFailure)
	s.Metric.Name = name
	return v2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: s}
}

func named(name string, src *v2.ExternalMetricSource) *v2.ExternalMetricSource {
	src.Metric.Name = name
	return src
}

func TestCarry(t *testing.T) {
	noFallback := named("plain", queueDepth(180, 1))
	noFallback.Fallback = nil
	specs := []v2.MetricSpec{
		externalMetric(named("failing", queueDepth(180, 2))),
		externalMetric(named("active", queueDepth(180, 3))),
		externalMetric(named("healthy", queueDepth(180, 4))),
		externalMetric(noFallback),
		{Type: autoscalingv2.ResourceMetricSourceType},
	}
	cases := []struct {
		name       string
		stored     []v2.MetricStatus
		wantKept   []string
		wantActive []string
	}{
		{name: "nothing stored carries nothing"},
		{name: "failing and active runs are carried in spec order, only active ones are named",
			stored: []v2.MetricStatus{
				entry("active", v2.FallbackStatusFallback, at(0)),
				entry("failing", v2.FallbackStatusNormal, at(time.Minute)),
				entry("healthy", v2.FallbackStatusNormal, nil),
			},
			wantKept: []string{"failing", "active"}, wantActive: []string{"active"}},
		{name: "a metric without a fallback configured is not carried",
			stored:   []v2.MetricStatus{entry("plain", v2.FallbackStatusFallback, at(0))},
			wantKept: nil},
		{name: "an entry of a metric gone from the spec is dropped",
			stored:   []v2.MetricStatus{entry("removed", v2.FallbackStatusFallback, at(0))},
			wantKept: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept, inFallback := Carry(specs, tc.stored, Target{Current: 5, StrategyEnabled: true})
			var active []string
			for _, a := range inFallback {
				active = append(active, a.Name)
			}
			var names []string
			for _, k := range kept {
				names = append(names, k.External.Metric.Name)
				if stored := Find(tc.stored, k.External.Metric); !reflect.DeepEqual(stored, k.External) || stored == k.External {
					t.Errorf("kept %+v, want a copy of the stored %+v", k.External, stored)
				}
			}
			if !reflect.DeepEqual(names, tc.wantKept) || !reflect.DeepEqual(active, tc.wantActive) {
				t.Errorf("Carry = %v, %v; want %v, %v", names, active, tc.wantKept, tc.wantActive)
			}
		})
	}
}

func TestCondition(t *testing.T) {
	cases := []struct {
		name        string
		active      []InFallback
		wantStatus  corev1.ConditionStatus
		wantReason  string
		wantMessage string
	}{
		{name: "no metric in fallback is False", wantStatus: corev1.ConditionFalse, wantReason: "NoFallbackActive",
			wantMessage: "no external metric is using its fallback"},
		{name: "metrics in fallback are True and named in order", active: []InFallback{{Name: "a", Strategy: v2.FallbackStrategyStatic, Replicas: 3}, {Name: "b", Replicas: 4}},
			wantStatus: corev1.ConditionTrue, wantReason: "FallbackActive",
			wantMessage: "external metrics using their fallback replica count: a, b"},
		{name: "a metric with a strategy is named with the strategy and its proposal",
			active:     []InFallback{{Name: "a", Strategy: v2.FallbackStrategyStatic, Replicas: 3}, {Name: "b", Strategy: v2.FallbackStrategyUseMax, Replicas: 12}},
			wantStatus: corev1.ConditionTrue, wantReason: "FallbackActive",
			wantMessage: "external metrics using their fallback replica count: a, b (strategy UseMax, proposing 12 replicas)"},
		{name: "UseMin proposing zero says so", active: []InFallback{{Name: "a", Strategy: v2.FallbackStrategyUseMin, Replicas: 0}},
			wantStatus: corev1.ConditionTrue, wantReason: "FallbackActive",
			wantMessage: "external metrics using their fallback replica count: a (strategy UseMin, proposing 0 replicas)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Condition(tc.active)
			if c.Type != v2.ExternalMetricFallbackActive || c.Status != tc.wantStatus || c.Reason != tc.wantReason || c.Message != tc.wantMessage {
				t.Errorf("Condition = %+v", c)
			}
		})
	}
}

func TestTransitions(t *testing.T) {
	specs := []v2.MetricSpec{externalMetric(queueDepth(300, 7))}
	unconfigured := []v2.MetricSpec{externalMetric(&v2.ExternalMetricSource{Metric: v2.MetricIdentifier{Name: "queue_depth"}})}
	inFallback := []v2.MetricStatus{entry("queue_depth", v2.FallbackStatusFallback, at(0))}
	failing := []v2.MetricStatus{entry("queue_depth", v2.FallbackStatusNormal, at(0))}
	recovered := []v2.MetricStatus{entry("queue_depth", v2.FallbackStatusNormal, nil)}
	activated := Event{Reason: EventActivated,
		Message: "Fallback activated for external metric 'queue_depth' after 5m0s of consecutive failures, using fallback replica count: 7"}

	cases := []struct {
		name          string
		specs         []v2.MetricSpec
		before, after []v2.MetricStatus
		want          []Event
	}{
		{name: "entering fallback is one activation", specs: specs, before: failing, after: inFallback, want: []Event{activated}},
		{name: "entering fallback with no entry before is one activation", specs: specs, after: inFallback, want: []Event{activated}},
		{name: "staying in fallback is no event", specs: specs, before: inFallback, after: inFallback},
		{name: "still failing is no event", specs: specs, before: failing, after: failing},
		{name: "recovering is one deactivation that says so", specs: specs, before: inFallback, after: recovered,
			want: []Event{{Reason: EventDeactivated, Message: "External metric 'queue_depth' recovered, fallback deactivated"}}},
		{name: "losing the entry is a deactivation for a fallback no longer configured", specs: unconfigured, before: inFallback,
			want: []Event{{Reason: EventDeactivated,
				Message: "Fallback deactivated for external metric 'queue_depth': its fallback is no longer configured or enabled"}}},
		{name: "a stored fallback the spec no longer configures is no activation", specs: unconfigured, after: inFallback},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Transitions(tc.specs, tc.before, tc.after, Target{Current: 12, StrategyEnabled: true}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Transitions = %+v, want %+v", got, tc.want)
			}
		})
	}
}
