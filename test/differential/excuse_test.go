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
	"math"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestExcusesAreNarrow pins how the allow-list excuses the steps of a
// sequence: a step only where an entry's condition holds, or as a
// consequence of one while the runs have not met again or the HPA may
// remember it, and never outside the entry's documented condition.
func TestExcusesAreNarrow(t *testing.T) {
	const overflowClass = "a sequence in which a reading over its target overflows an int32 proposal"
	huge := int64(math.MaxInt64)
	// A sequence whose step 0 overflows, then ordinary readings; advance
	// is the length of each step after the first, in periods.
	overflowing := func(advance ...int) seqScenario {
		s := seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "Value", Name: "m0", Value: 1000}}, Start: 1,
			Steps: []step{{Advance: 1, Manual: -1, Values: []int64{huge}}}}
		for _, a := range advance {
			s.Steps = append(s.Steps, step{Advance: a, Manual: -1, Values: []int64{1000}})
		}
		return s
	}
	at := func(scales ...int32) []observation {
		out := make([]observation, len(scales))
		for i, n := range scales {
			out[i] = observation{Scale: n}
		}
		return out
	}
	scaledToZero := func(scale int32, status corev1.ConditionStatus) observation {
		return observation{Scale: scale, Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.ScaledToZero, Status: status}}}}
	}
	atZeroReplicas := func(currentReplicas int32, average int64) observation {
		q := resource.NewMilliQuantity(average, resource.DecimalSI)
		return observation{Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: currentReplicas, CurrentMetrics: []autoscalingv2.MetricStatus{{
			Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricStatus{Current: autoscalingv2.MetricValueStatus{AverageValue: q}},
		}}}}
	}
	holding := func(scale int32) observation {
		return observation{Scale: scale, Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale", Message: "recommended size matches current size"},
		}}}
	}
	inactive := func(scale int32) observation {
		return observation{Scale: scale, Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric"},
		}}}
	}
	// inactiveSince: a pass that computed no count, ScalingActive False
	// since sec seconds into the run.
	inactiveSince := func(scale int32, sec int) observation {
		o := inactive(scale)
		o.Status.Conditions[0].LastTransitionTime = metav1.NewTime(time.Unix(int64(sec), 0).UTC())
		return o
	}
	stabilized := func(scale int32) observation {
		return observation{Scale: scale, Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ScaleDownStabilized"},
		}}}
	}
	withReplicas := func(o observation, current, desired int32) observation {
		o.Status.CurrentReplicas, o.Status.DesiredReplicas = current, desired
		return o
	}
	limited := func(o observation, status corev1.ConditionStatus) observation {
		o.Status.Conditions = append(o.Status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingLimited, Status: status})
		return o
	}
	// external: o with an External metric's status, its value or its
	// average (milli-units; 0 for none).
	external := func(o observation, value, average int64) observation {
		cur := autoscalingv2.MetricValueStatus{}
		if value != 0 {
			cur.Value = resource.NewMilliQuantity(value, resource.DecimalSI)
		}
		if average != 0 {
			cur.AverageValue = resource.NewMilliQuantity(average, resource.DecimalSI)
		}
		o.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricStatus{
			Metric: autoscalingv2.MetricIdentifier{Name: "m0"}, Current: cur,
		}}}
		return o
	}
	// reading: a pass that read current replicas and wrote scale.
	reading := func(scale, current int32) observation {
		return observation{Scale: scale, Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: current, DesiredReplicas: scale}}
	}
	// stamped: an observation of a rescale at sec seconds, with an
	// AbleToScale condition that turned then.
	stamped := func(scale int32, sec float64) observation {
		at := metav1.NewTime(time.Unix(0, 0).UTC().Add(time.Duration(sec * float64(time.Second))))
		return observation{Scale: scale, Status: autoscalingv2.HorizontalPodAutoscalerStatus{LastScaleTime: &at, Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "SucceededRescale", LastTransitionTime: at},
		}}}
	}
	slowSeq := func(slow bool) seqScenario {
		s := seqScenario{Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "Value", Name: "m0", Value: 1000}}, Steps: []step{{Advance: 1, Manual: -1, Values: []int64{3000}}}}
		if slow {
			s.Steps[0].Fault = &fault{SlowFetch: []int{0}}
		}
		return s
	}
	d := slowFetchDelay.Seconds()
	averageValue := seqScenario{Max: 10, Metrics: []metricSpec{{Type: "External", Target: "AverageValue", Name: "m0", Value: 1000}}, Steps: []step{{Advance: 1, Manual: -1, Values: []int64{0}}}}

	cases := []struct {
		name     string
		s        seqScenario
		up, ours []observation
		diffAt   int // -1: every difference excused
		misuse   string
		wantUses map[string]excuseUses
	}{
		{
			name: "a difference where the cause holds is excused at that step",
			s:    overflowing(1), up: at(1, 1), ours: at(10, 1), diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1}},
		},
		{
			name: "the steps that keep differing within the HPA's memory of an overflow are its consequences",
			s:    overflowing(1, 1), up: at(1, 2, 3), ours: at(10, 9, 8), diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "a step that still decides differently beyond the HPA's memory of an overflow fails, though the runs never met",
			s:    overflowing(30, 30), up: at(1, 2, 3), ours: at(10, 9, 8), diffAt: 2,
		},
		{
			name: "beyond the HPA's memory of an overflow, the count it left while both hold their count is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(1), holding(2), holding(2)}, ours: []observation{holding(10), holding(9), holding(9)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, the count it left while one cannot compute a count and the other holds is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(1), holding(2), holding(2)}, ours: []observation{holding(10), inactive(10), inactive(10)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, one controller closing on the other's count while the other holds is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), holding(2)}, ours: []observation{holding(10), inactive(10), {Scale: 2}}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, both deciding the same new count from the counts it left is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), reading(12, 2)}, ours: []observation{holding(10), holding(10), reading(12, 10)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, the averages over the counts it left, where both decide the same new count, are its consequence",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), external(reading(12, 2), 0, 500)}, ours: []observation{holding(10), holding(10), external(reading(12, 10), 0, 100)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, a metric's value that differs where both decide the same new count fails",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), external(reading(12, 2), 1000, 0)}, ours: []observation{holding(10), holding(10), external(reading(12, 10), 2000, 0)}, diffAt: 2,
		},
		{
			name: "beyond the HPA's memory of an overflow, both deciding the same new count from counts other than it left fails",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), reading(12, 3)}, ours: []observation{holding(10), holding(10), reading(12, 10)}, diffAt: 2,
		},
		{
			name: "beyond the HPA's memory of an overflow, both moving to meet at one count between theirs is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), {Scale: 6, Events: []string{"New size: 4", "New size: 6"}}}, ours: []observation{holding(10), holding(10), {Scale: 6, Events: []string{"New size: 6"}}}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, both moving to one count beyond theirs fails",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), {Scale: 12, Events: []string{"New size: 4", "New size: 12"}}}, ours: []observation{holding(10), holding(10), {Scale: 12, Events: []string{"New size: 12"}}}, diffAt: 2,
		},
		{
			name: "beyond the HPA's memory of an overflow, both moving toward each other without meeting fails",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), {Scale: 5}}, ours: []observation{holding(10), holding(10), {Scale: 7}}, diffAt: 2,
		},
		{
			name: "beyond the HPA's memory of an overflow, a count each stabilization window holds is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), stabilized(2)}, ours: []observation{holding(10), holding(10), holding(10)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, counts each pass kept before a person scaled both are its consequence",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), withReplicas(holding(20), 2, 2)}, ours: []observation{holding(10), holding(10), withReplicas(holding(20), 10, 10)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, a condition two passes that computed no count left as it was is its consequence",
			s:    overflowing(30, 30), up: []observation{limited(inactive(0), "False"), limited(inactive(0), "False"), withReplicas(limited(inactive(0), "False"), 0, 1)},
			ours: []observation{limited(inactive(0), "True"), limited(inactive(0), "True"), withReplicas(limited(inactive(0), "True"), 0, 1)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, a condition a pass that computed a count left differing fails",
			s:    overflowing(30, 30), up: []observation{limited(inactive(0), "False"), limited(inactive(0), "False"), withReplicas(limited(holding(0), "False"), 0, 1)},
			ours: []observation{limited(inactive(0), "True"), limited(inactive(0), "True"), withReplicas(limited(holding(0), "True"), 0, 1)}, diffAt: 2,
		},
		{
			name: "beyond the HPA's memory of an overflow, a condition one controller set at an earlier rescale and the other never did is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(0), holding(1), withReplicas(holding(1), 1, 1)},
			ours: []observation{scaledToZero(10, corev1.ConditionFalse), scaledToZero(1, corev1.ConditionFalse), withReplicas(scaledToZero(1, corev1.ConditionFalse), 1, 1)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, the status two failed writes left as it was is its consequence",
			s:    overflowing(30, 30), up: []observation{holding(2), withReplicas(observation{Scale: 2}, 2, 2), withReplicas(observation{Scale: 12}, 2, 2)},
			ours: []observation{holding(10), withReplicas(observation{Scale: 10}, 10, 10), withReplicas(observation{Scale: 12}, 10, 10)}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 2}},
		},
		{
			name: "beyond the HPA's memory of an overflow, a rescale past the other's count fails",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), holding(2)}, ours: []observation{holding(10), inactive(10), {Scale: 1}}, diffAt: 2,
		},
		{
			// Step 2 is the HPA's memory long (300 s), its first pass at
			// 480 s.
			name: "beyond the HPA's memory of an overflow, a rescale past the other's count that the other's window holds, from a window a step without a count emptied, is its consequence",
			s:    overflowing(30, 20, 1), up: []observation{holding(2), holding(2), holding(2), stabilized(2)},
			ours: []observation{holding(10), holding(10), inactiveSince(10, 480), {Scale: 1}}, diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 3}},
		},
		{
			name: "beyond the HPA's memory of an overflow, a rescale past the other's held count from a step that computed a count at its first pass fails",
			s:    overflowing(30, 20, 1), up: []observation{holding(2), holding(2), holding(2), stabilized(2)},
			ours: []observation{holding(10), holding(10), inactiveSince(10, 495), {Scale: 1}}, diffAt: 3,
		},
		{
			name: "beyond the HPA's memory of an overflow, a rescale past the other's held count after a step shorter than the window fails",
			s:    overflowing(30, 10, 1), up: []observation{holding(2), holding(2), holding(2), stabilized(2)},
			ours: []observation{holding(10), holding(10), inactive(10), {Scale: 1}}, diffAt: 3,
		},
		{
			name: "beyond the HPA's memory of an overflow, a rescale past the other's count that the other's window holds the other way fails",
			s:    overflowing(30, 20, 1), up: []observation{holding(2), holding(2), holding(2), stabilized(2)},
			ours: []observation{holding(1), holding(1), inactive(1), {Scale: 3}}, diffAt: 3,
		},
		{
			name: "beyond the HPA's memory of an overflow, a rescale away from the other's count fails",
			s:    overflowing(30, 30), up: []observation{holding(2), holding(2), holding(2)}, ours: []observation{holding(10), inactive(10), {Scale: 11}}, diffAt: 2,
		},
		{
			name: "an overflow's step that differs beyond what a proposal decides is a misuse",
			s:    overflowing(1), up: []observation{{Scale: 1}}, ours: []observation{{Scale: 10, Status: autoscalingv2.HorizontalPodAutoscalerStatus{ObservedGeneration: new(int64)}}},
			misuse: "goes beyond its own",
		},
		{
			name: "a zero upstream holds and kube-hpa has left, with no status write lost, is not the lost zero's",
			s:    seqScenario{Min: 0, Max: 10, Metrics: averageValue.Metrics, Start: 3, Steps: []step{{Advance: 1, Manual: -1, Values: []int64{0}}, {Advance: 1, Manual: -1, Values: []int64{4000}}}},
			up:   at(0, 0), ours: []observation{{Scale: 0}, scaledToZero(4, corev1.ConditionFalse)}, diffAt: 1,
		},
		{
			name: "a zero the controllers made after a person's count above zero, its status write lost, is the lost zero's",
			s: seqScenario{Max: 10, Metrics: averageValue.Metrics, Start: 3, Steps: []step{
				{Advance: 1, Manual: -1, Values: []int64{0}, Fault: &fault{Person: true, PersonReplicas: 3, StatusFail: "timeout"}},
				{Advance: 1, Manual: -1, Values: []int64{4000}},
			}},
			up: at(0, 0), ours: []observation{scaledToZero(0, corev1.ConditionTrue), scaledToZero(4, corev1.ConditionFalse)}, diffAt: -1,
			wantUses: map[string]excuseUses{"a status write lost right after the HPA scaled its target to zero": {caused: 2}},
		},
		{
			name: "a zero the controllers made again from a person's count on a paused target, its status write lost, is the lost zero's",
			s: seqScenario{Max: 10, Metrics: averageValue.Metrics, Start: 0, Steps: []step{
				{Advance: 1, Manual: -1, Values: []int64{0}, Fault: &fault{Person: true, PersonReplicas: 1, StatusFail: "timeout"}},
				{Advance: 1, Manual: -1, Values: []int64{4000}},
			}},
			up: at(0, 0), ours: []observation{scaledToZero(0, corev1.ConditionTrue), scaledToZero(4, corev1.ConditionFalse)}, diffAt: -1,
			wantUses: map[string]excuseUses{"a status write lost right after the HPA scaled its target to zero": {caused: 2}},
		},
		{
			name: "a person's pause to zero, its status write lost, is not the lost zero's",
			s: seqScenario{Max: 10, Metrics: averageValue.Metrics, Start: 3, Steps: []step{
				{Advance: 1, Manual: -1, Values: []int64{0}, Fault: &fault{Person: true, StatusFail: "timeout"}},
				{Advance: 1, Manual: -1, Values: []int64{4000}},
			}},
			up: at(0, 0), ours: []observation{scaledToZero(0, corev1.ConditionTrue), scaledToZero(4, corev1.ConditionFalse)}, diffAt: 0,
		},
		{
			name: "once the runs met again, a difference in a step that began within the HPA's memory of the cause is still its consequence",
			s:    overflowing(1, 30), up: at(1, 2, 2), ours: at(10, 2, 5), diffAt: -1,
			wantUses: map[string]excuseUses{overflowClass: {caused: 1, carried: 1}},
		},
		{
			name: "once the runs met again, a difference in a step that began beyond the HPA's memory of the cause fails",
			s:    overflowing(30, 1), up: at(1, 2, 2), ours: at(10, 2, 5), diffAt: 2,
		},
		{
			name: "a difference before the cause fails",
			s:    func() seqScenario { s := overflowing(1); s.Steps[0], s.Steps[1] = s.Steps[1], s.Steps[0]; return s }(),
			up:   at(1, 1), ours: at(2, 1), diffAt: 0,
		},
		{
			name: "a cause whose step shows none of its own differences is a misuse",
			s:    seqScenario{Max: 10, Metrics: averageValue.Metrics, Steps: []step{{Advance: 1, Manual: -1, Values: []int64{1000}}}},
			up:   []observation{scaledToZero(3, corev1.ConditionTrue)}, ours: []observation{scaledToZero(4, corev1.ConditionTrue)},
			misuse: "is none of its own",
		},
		{
			name: "a cause whose step shows its own difference is excused",
			s:    seqScenario{Max: 10, Metrics: averageValue.Metrics, Steps: []step{{Advance: 1, Manual: -1, Values: []int64{1000}}}},
			up:   []observation{scaledToZero(3, corev1.ConditionTrue)}, ours: []observation{scaledToZero(3, corev1.ConditionFalse)}, diffAt: -1,
			wantUses: map[string]excuseUses{"a workload the HPA scaled to zero is seen above zero without a rescale (a person scaled it up)": {caused: 1}},
		},
		{
			name: "with slow fetches, kube-hpa's stamps the delay before upstream's fail: no entry excuses a stamp",
			s:    slowSeq(true), up: []observation{stamped(3, 15+d)}, ours: []observation{stamped(3, 15)}, diffAt: 0,
		},
		{
			name: "with slow fetches, kube-hpa's stamps the delay after upstream's fail",
			s:    slowSeq(true), up: []observation{stamped(3, 15)}, ours: []observation{stamped(3, 15+d)}, diffAt: 0,
		},
		{
			name: "a rewrite where its condition holds is excused",
			s:    averageValue, up: []observation{atZeroReplicas(0, math.MinInt64)}, ours: []observation{atZeroReplicas(0, 7000)}, diffAt: -1,
			wantUses: map[string]excuseUses{"AverageValue Object or External metric at 0 replicas (reconcile)": {caused: 1}},
		},
		{
			name: "a rewrite where its condition does not hold is a misuse",
			s:    averageValue, up: []observation{atZeroReplicas(2, math.MinInt64)}, ours: []observation{atZeroReplicas(2, 7000)},
			misuse: "where its condition does not hold",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := classifySeq(tc.s, tc.up, tc.ours)
			if tc.misuse != "" {
				if !strings.Contains(v.misuse, tc.misuse) {
					t.Fatalf("misuse %q, want one that says %q", v.misuse, tc.misuse)
				}
				return
			}
			if v.misuse != "" {
				t.Fatalf("unexpected misuse: %s", v.misuse)
			}
			switch {
			case tc.diffAt < 0 && v.diff != nil:
				t.Fatalf("difference at step %d (%v) not excused", v.diff.Step, v.diff.Fields)
			case tc.diffAt >= 0 && (v.diff == nil || v.diff.Step != tc.diffAt):
				t.Fatalf("difference %+v, want one at step %d", v.diff, tc.diffAt)
			}
			got := map[string]excuseUses{}
			for a, u := range v.uses {
				got[a.Class] = u
			}
			if tc.diffAt < 0 && len(got) != len(tc.wantUses) {
				t.Errorf("uses %v, want %v", got, tc.wantUses)
			}
			for class, want := range tc.wantUses {
				if got[class] != want {
					t.Errorf("uses of %q: %+v, want %+v", class, got[class], want)
				}
			}
		})
	}
}
