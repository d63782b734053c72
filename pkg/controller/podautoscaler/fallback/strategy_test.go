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

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func withStrategy(src *v2.ExternalMetricSource, s v2.FallbackStrategy) *v2.ExternalMetricSource {
	src.Fallback.Strategy = s
	return src
}

// TestDecideStrategy pins what a metric in fallback proposes under each
// strategy, with the target above, below, at and from zero replicas, and
// that the gate off gives back Static whatever the spec says.
func TestDecideStrategy(t *testing.T) {
	const replicas = 6
	cases := []struct {
		name     string
		strategy v2.FallbackStrategy
		current  int32
		gateOff  bool
		want     int32
		wantUsed v2.FallbackStrategy
	}{
		{name: "unset is Static: replicas, whatever the current count", strategy: "", current: 20, want: replicas, wantUsed: v2.FallbackStrategyStatic},
		{name: "Static proposes replicas above the current count", strategy: v2.FallbackStrategyStatic, current: 2, want: replicas, wantUsed: v2.FallbackStrategyStatic},
		{name: "Static proposes replicas below the current count", strategy: v2.FallbackStrategyStatic, current: 20, want: replicas, wantUsed: v2.FallbackStrategyStatic},
		{name: "UseMax keeps a current count above replicas", strategy: v2.FallbackStrategyUseMax, current: 20, want: 20, wantUsed: v2.FallbackStrategyUseMax},
		{name: "UseMax raises a current count below replicas", strategy: v2.FallbackStrategyUseMax, current: 2, want: replicas, wantUsed: v2.FallbackStrategyUseMax},
		{name: "UseMax at replicas proposes replicas", strategy: v2.FallbackStrategyUseMax, current: replicas, want: replicas, wantUsed: v2.FallbackStrategyUseMax},
		{name: "UseMax leaves the controller's zero for replicas", strategy: v2.FallbackStrategyUseMax, current: 0, want: replicas, wantUsed: v2.FallbackStrategyUseMax},
		{name: "UseMin lowers a current count above replicas", strategy: v2.FallbackStrategyUseMin, current: 20, want: replicas, wantUsed: v2.FallbackStrategyUseMin},
		{name: "UseMin keeps a current count below replicas", strategy: v2.FallbackStrategyUseMin, current: 2, want: 2, wantUsed: v2.FallbackStrategyUseMin},
		{name: "UseMin at replicas proposes replicas", strategy: v2.FallbackStrategyUseMin, current: replicas, want: replicas, wantUsed: v2.FallbackStrategyUseMin},
		{name: "UseMin keeps the controller's zero", strategy: v2.FallbackStrategyUseMin, current: 0, want: 0, wantUsed: v2.FallbackStrategyUseMin},
		{name: "UseMax with the gate off is Static", strategy: v2.FallbackStrategyUseMax, current: 20, gateOff: true, want: replicas, wantUsed: v2.FallbackStrategyStatic},
		{name: "UseMin with the gate off is Static", strategy: v2.FallbackStrategyUseMin, current: 2, gateOff: true, want: replicas, wantUsed: v2.FallbackStrategyStatic},
		{name: "UseMin from zero with the gate off is Static", strategy: v2.FallbackStrategyUseMin, current: 0, gateOff: true, want: replicas, wantUsed: v2.FallbackStrategyStatic},
		{name: "a strategy this controller does not know is Static", strategy: "UseAverage", current: 20, want: replicas, wantUsed: v2.FallbackStrategyStatic},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := withStrategy(queueDepth(180, replicas), tc.strategy)
			tgt := Target{Current: tc.current, StrategyEnabled: !tc.gateOff}
			d := Decide(stored(v2.FallbackStatusNormal, at(0)), src, start.Add(180*time.Second), Computed{Err: providerErr()}, tgt)
			if d.Outcome != Active || d.Replicas != tc.want || d.Strategy != tc.wantUsed {
				t.Errorf("Decide = %v proposing %d with %q, want Active proposing %d with %q", d.Outcome, d.Replicas, d.Strategy, tc.want, tc.wantUsed)
			}
		})
	}
}

// TestStrategyOnlyShapesAnActiveFallback pins that a strategy changes
// nothing before the fallback is due, nor for a metric that was computed.
func TestStrategyOnlyShapesAnActiveFallback(t *testing.T) {
	src := withStrategy(queueDepth(180, 6), v2.FallbackStrategyUseMax)
	tgt := Target{Current: 20, StrategyEnabled: true}
	failing := Decide(stored(v2.FallbackStatusNormal, at(0)), src, start.Add(time.Second), Computed{Err: providerErr()}, tgt)
	if failing.Outcome != Failing || failing.Replicas != 0 || failing.Strategy != "" {
		t.Errorf("before the deadline: %+v, want Failing with no proposal", failing)
	}
	computed := v2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: &v2.ExternalMetricStatus{
		Metric: v2.MetricIdentifier{Name: "queue_depth"}}}
	normal := Decide(stored(v2.FallbackStatusFallback, at(0)), src, start.Add(time.Hour), Computed{Status: computed}, tgt)
	if normal.Outcome != Normal || normal.Replicas != 0 {
		t.Errorf("computed: %+v, want Normal with no fallback proposal", normal)
	}
}

// TestCarryNamesTheStrategyProposal pins that a pass asking no metric names
// a carried fallback with what its strategy proposes at the current count.
func TestCarryNamesTheStrategyProposal(t *testing.T) {
	specs := []v2.MetricSpec{externalMetric(withStrategy(named("up", queueDepth(180, 3)), v2.FallbackStrategyUseMax)),
		externalMetric(withStrategy(named("down", queueDepth(180, 3)), v2.FallbackStrategyUseMin))}
	stored := []v2.MetricStatus{entry("up", v2.FallbackStatusFallback, at(0)), entry("down", v2.FallbackStatusFallback, at(0))}
	_, active := Carry(specs, stored, Target{Current: 0, StrategyEnabled: true})
	want := []InFallback{{Name: "up", Strategy: v2.FallbackStrategyUseMax, Replicas: 3}, {Name: "down", Strategy: v2.FallbackStrategyUseMin, Replicas: 0}}
	if !reflect.DeepEqual(active, want) {
		t.Errorf("Carry at zero = %+v, want %+v", active, want)
	}
}

// TestActivationNamesTheStrategy pins the activation event: KEP-5679's text
// for Static (or the gate off), the strategy and its proposal otherwise.
func TestActivationNamesTheStrategy(t *testing.T) {
	failing := []v2.MetricStatus{entry("queue_depth", v2.FallbackStatusNormal, at(0))}
	inFallback := []v2.MetricStatus{entry("queue_depth", v2.FallbackStatusFallback, at(0))}
	static := "Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback replica count: 7"
	cases := []struct {
		name     string
		strategy v2.FallbackStrategy
		tgt      Target
		want     string
	}{
		{name: "Static keeps KEP-5679's text", strategy: v2.FallbackStrategyStatic, tgt: Target{Current: 12, StrategyEnabled: true}, want: static},
		{name: "UseMax with the gate off keeps KEP-5679's text", strategy: v2.FallbackStrategyUseMax, tgt: Target{Current: 12}, want: static},
		{name: "UseMax names the strategy and the count it proposed", strategy: v2.FallbackStrategyUseMax, tgt: Target{Current: 12, StrategyEnabled: true},
			want: "Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback strategy UseMax: proposing 12 replicas (fallback replica count 7, current replicas 12)"},
		{name: "UseMin names the strategy and the count it proposed", strategy: v2.FallbackStrategyUseMin, tgt: Target{Current: 12, StrategyEnabled: true},
			want: "Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback strategy UseMin: proposing 7 replicas (fallback replica count 7, current replicas 12)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			specs := []v2.MetricSpec{externalMetric(withStrategy(queueDepth(180, 7), tc.strategy))}
			got := Transitions(specs, failing, inFallback, tc.tgt)
			if len(got) != 1 || got[0].Reason != EventActivated || got[0].Message != tc.want {
				t.Errorf("Transitions = %+v, want one activation %q", got, tc.want)
			}
		})
	}
}
