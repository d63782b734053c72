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

package behavior

import (
	"math"
	"reflect"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
)

const (
	testKey  = "ns/web"
	otherKey = "ns/other"
)

// now is the time at which every scenario calls Normalize.
func now() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// past is something that happened to the Store before now.
type past struct {
	ago time.Duration
	do  func(s *Store, in Input)
}

// recommended is an earlier Normalize of the same HPA.
func recommended(ago time.Duration, current, recommendation int32) past {
	return past{ago, func(s *Store, in Input) {
		in.CurrentReplicas, in.Recommendation = current, recommendation
		normalized(s, in)
	}}
}

// recommendedFor is an earlier Normalize of another HPA.
func recommendedFor(key string, ago time.Duration, current, recommendation int32) past {
	return past{ago, func(s *Store, in Input) {
		in.Key, in.CurrentReplicas, in.Recommendation = key, current, recommendation
		normalized(s, in)
	}}
}

// normalized is Normalize with its recommendation committed, as by a pass
// whose decision stands.
func normalized(s *Store, in Input) Result {
	r := s.Normalize(in)
	s.Commit(in.Key, Effects{Recommendation: r.Recommendation})
	return r
}

// initial is an earlier committed Initial of the HPA.
func initial(ago time.Duration, current int32) past {
	return past{ago, func(s *Store, in Input) { s.Commit(in.Key, Effects{Initial: s.Initial(in.Key, current, time.Time{})}) }}
}

// scaled is an earlier rescale of the HPA, under its behavior.
func scaled(ago time.Duration, from, to int32) past {
	return past{ago, func(s *Store, in Input) {
		s.Commit(in.Key, Effects{Scale: s.Scale(in.Behavior, from, to, time.Time{})})
	}}
}

// scaledWithout is an earlier rescale recorded without spec.behavior.
func scaledWithout(ago time.Duration, from, to int32) past {
	return past{ago, func(s *Store, in Input) { s.Commit(in.Key, Effects{Scale: s.Scale(nil, from, to, time.Time{})}) }}
}

// forgot is an earlier deletion of the HPA.
func forgot(ago time.Duration) past {
	return past{ago, func(s *Store, in Input) { s.Forget(in.Key) }}
}

// scenario is one Normalize call after a history, and what it must return.
type scenario struct {
	name       string
	flagWindow time.Duration
	behavior   *autoscalingv2.HorizontalPodAutoscalerBehavior
	history    []past // oldest first

	current, recommendation int32
	min                     int32
	max                     int32 // 0 means 100

	want        int32
	stabilized  *int32 // nil means the recommendation
	wantAble    condition.Condition
	wantLimited condition.Condition
}

func (sc scenario) input() Input {
	maxReplicas := sc.max
	if maxReplicas == 0 {
		maxReplicas = 100
	}
	return Input{
		Key:             testKey,
		Behavior:        sc.behavior,
		CurrentReplicas: sc.current,
		Recommendation:  sc.recommendation,
		MinReplicas:     sc.min,
		MaxReplicas:     maxReplicas,
	}
}

// replay builds a Store on a fake clock and plays the history into it.
func (sc scenario) replay() (*Store, *testingclock.FakePassiveClock) {
	clk := testingclock.NewFakePassiveClock(now())
	s := NewStore(Options{Clock: clk, DownscaleStabilizationWindow: sc.flagWindow})
	in := sc.input()
	for _, p := range sc.history {
		clk.SetTime(now().Add(-p.ago))
		p.do(s, in)
	}
	clk.SetTime(now())
	return s, clk
}

func (sc scenario) run(t *testing.T) {
	t.Helper()
	s, _ := sc.replay()
	got := s.Normalize(sc.input())
	// What it records is pinned by the history tests (store_test.go).
	got.Recommendation = Record{}
	want := Result{
		Replicas:   sc.want,
		Stabilized: ptr.Deref(sc.stabilized, sc.recommendation),
		Conditions: []condition.Condition{sc.wantAble, sc.wantLimited},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize() =\n  %+v\nwant\n  %+v", got, want)
	}
}

func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	seen := map[string]bool{}
	for _, sc := range scenarios {
		if seen[sc.name] {
			t.Fatalf("duplicate scenario name %q", sc.name)
		}
		seen[sc.name] = true
		t.Run(sc.name, sc.run)
	}
}

// Expected conditions, spelled out independently of the code under test.

// cond spells a condition out.
func cond(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, message string) condition.Condition {
	return condition.Condition{Type: t, Status: status, Reason: reason, Message: message}
}

func ready() condition.Condition {
	return cond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale",
		"recommended size matches current size")
}

func upStabilized() condition.Condition {
	return cond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "ScaleUpStabilized",
		"recent recommendations were lower than current one, applying the lowest recent recommendation")
}

func downStabilized() condition.Condition {
	return cond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "ScaleDownStabilized",
		"recent recommendations were higher than current one, applying the highest recent recommendation")
}

func within() condition.Condition {
	return cond(autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange",
		"the desired count is within the acceptable range")
}

func limited(reason string) condition.Condition {
	messages := map[string]string{
		"ScaleUpLimit":    "the desired replica count is increasing faster than the maximum scale rate",
		"ScaleDownLimit":  "the desired replica count is decreasing faster than the maximum scale rate",
		"TooManyReplicas": "the desired replica count is more than the maximum replica count",
		"TooFewReplicas":  "the desired replica count is less than the minimum replica count",
	}
	return cond(autoscalingv2.ScalingLimited, corev1.ConditionTrue, reason, messages[reason])
}

// Behavior builders.

func pods(value, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: value, PeriodSeconds: period}
}

func percent(value, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: value, PeriodSeconds: period}
}

// rules builds scaling rules; a nil window or an empty select stays unset.
func rules(window *int32, sel autoscalingv2.ScalingPolicySelect, policies ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	r := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: window, Policies: policies}
	if sel != "" {
		r.SelectPolicy = ptr.To(sel)
	}
	return r
}

func maxOf(policies ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	return rules(ptr.To[int32](0), autoscalingv2.MaxChangePolicySelect, policies...)
}

func minOf(policies ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	return rules(ptr.To[int32](0), autoscalingv2.MinChangePolicySelect, policies...)
}

func disabled() *autoscalingv2.HPAScalingRules {
	return rules(ptr.To[int32](0), autoscalingv2.DisabledPolicySelect, pods(1, 60))
}

// window gives only a stabilization window; the rest takes the defaults.
func window(seconds int32) *autoscalingv2.HPAScalingRules {
	return rules(ptr.To(seconds), "")
}

func withUp(up *autoscalingv2.HPAScalingRules) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: up}
}

func withDown(down *autoscalingv2.HPAScalingRules) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: down}
}

func with(up, down *autoscalingv2.HPAScalingRules) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: up, ScaleDown: down}
}

func defaults() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{}
}

const maxInt32 = math.MaxInt32
