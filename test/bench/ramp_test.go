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

package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

func TestUpstreamSteps(t *testing.T) {
	tests := []struct {
		name string
		c    rampCase
		want []int32
	}{
		{name: "no behavior field: upstream's legacy max(2x, 4) per pass, from 1", c: rampCase{behavior: rampNoBehavior, min: 1, target: 7}, want: []int32{4, 7}},
		{name: "no behavior field: upstream's legacy max(2x, 4) per pass, from 2", c: rampCase{behavior: rampNoBehavior, min: 2, target: 7}, want: []int32{4, 7}},
		{name: "the defaulted behavior, 4 Pods or 100 Percent: 6 then 7 from 2", c: rampCase{behavior: rampDefaultBehavior, min: 2, target: 7}, want: []int32{6, 7}},
		{name: "1 Pod per period climbs one step per period", c: rampCase{behavior: rampPods, value: 1, min: 2, target: 8}, want: []int32{3, 4, 5, 6, 7, 8}},
		{name: "100 Percent per period doubles, up to the target", c: rampCase{behavior: rampPercent, value: 100, min: 1, target: 10}, want: []int32{2, 4, 8, 10}},
		{name: "a target above maxReplicas stops at maxReplicas", c: rampCase{behavior: rampPercent, value: 100, min: 2, target: 20}, want: []int32{4, 8, 10}},
		{name: "a percentage rounds up", c: rampCase{behavior: rampPercent, value: 50, min: 3, target: 7}, want: []int32{5, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.c.upstreamSteps()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRampHPAsCarryTheirBehavior(t *testing.T) {
	tests := []struct {
		name   string
		c      rampCase
		policy *autoscalingv2.HPAScalingPolicy
		empty  bool
	}{
		{name: "no behavior field", c: rampCase{name: "x", behavior: rampNoBehavior, min: 1, target: 7}},
		{name: "an empty behavior, for the API server to default", c: rampCase{name: "x", behavior: rampDefaultBehavior, min: 2, target: 7}, empty: true},
		{name: "one Pods policy", c: rampCase{name: "x", behavior: rampPods, value: 1, min: 2, target: 8},
			policy: &autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 15}},
		{name: "one Percent policy", c: rampCase{name: "x", behavior: rampPercent, value: 100, min: 1, target: 10},
			policy: &autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.c.hpa()
			if *h.Spec.MinReplicas != tc.c.min || h.Spec.MaxReplicas != rampMaxReplicas || h.Spec.ScaleTargetRef.Name != "x" ||
				h.Spec.Metrics[0].External.Metric.Selector.MatchLabels["ramp"] != "x" {
				t.Errorf("HPA %+v", h.Spec)
			}
			b := h.Spec.Behavior
			switch {
			case tc.policy != nil:
				if b == nil || b.ScaleUp == nil || len(b.ScaleUp.Policies) != 1 || b.ScaleUp.Policies[0] != *tc.policy || b.ScaleDown != nil {
					t.Errorf("behavior %+v, want scale-up policy %+v alone", b, tc.policy)
				}
			case tc.empty:
				if b == nil || b.ScaleUp != nil || b.ScaleDown != nil {
					t.Errorf("behavior %+v, want an empty one", b)
				}
			case b != nil:
				t.Errorf("behavior %+v, want none", b)
			}
		})
	}
}

func TestRampMetricsAskForTheTarget(t *testing.T) {
	for _, c := range rampCases {
		steady := `- {value: "100", labels: {ramp: ` + c.name + `}}`
		raised := `- {value: "` + formatValue("%.0f", float64(c.target*rampTarget)) + `", labels: {ramp: ` + c.name + `}}`
		if !strings.Contains(rampMetricsData(false)["external."+metricRamp], steady) || !strings.Contains(rampMetricsData(true)["external."+metricRamp], raised) {
			t.Errorf("%s: no %q steady or %q raised", c.name, steady, raised)
		}
		if c.min < 1 || c.target <= c.min || c.target > rampMaxReplicas {
			t.Errorf("%s: min %d target %d", c.name, c.min, c.target)
		}
	}
}

func TestRampTimeline(t *testing.T) {
	changed := benchT0
	at := func(s float64, n int32) replicaEvent {
		return replicaEvent{at: changed.Add(time.Duration(s * float64(time.Second))), replicas: n}
	}
	tests := []struct {
		name        string
		events      []replicaEvent
		want        RampTimeline
		wantClimb   float64
		wantAt6     float64
		wantReached bool
	}{
		{
			name:    "each new count after the change, in order; the start before it left out",
			events:  []replicaEvent{at(-20, 2), at(7, 6), at(22, 7)},
			want:    RampTimeline{Name: "d", Steps: []RampStep{{6, 7}, {7, 22}}, Reached: true, FinalSeconds: 22},
			wantAt6: 7, wantClimb: 15, wantReached: true,
		},
		{
			name:    "a count seen again is not a new step",
			events:  []replicaEvent{at(-20, 2), at(3, 4), at(4, 3), at(5, 4), at(19, 7)},
			want:    RampTimeline{Name: "d", Steps: []RampStep{{4, 3}, {3, 4}, {7, 19}}, Reached: true, FinalSeconds: 19},
			wantAt6: math.NaN(), wantClimb: 16, wantReached: true,
		},
		{
			name:    "a target not reached has no final time and no climb",
			events:  []replicaEvent{at(-20, 2), at(7, 6)},
			want:    RampTimeline{Name: "d", Steps: []RampStep{{6, 7}}},
			wantAt6: 7, wantClimb: math.NaN(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rampTimeline("d", tc.events, changed, 7)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
			if !same(got.At(6), tc.wantAt6) || !same(got.Climb(), tc.wantClimb) || math.IsNaN(got.Final()) == tc.wantReached {
				t.Errorf("at 6 %v climb %v final %v, want %v %v reached %v", got.At(6), got.Climb(), got.Final(), tc.wantAt6, tc.wantClimb, tc.wantReached)
			}
		})
	}
}

func TestReplicaWatchRecordsChangesOnly(t *testing.T) {
	w := &replicaWatch{events: map[string][]replicaEvent{}}
	for _, n := range []int32{2, 2, 6, 6, 7} {
		w.observe(newDeployment(Namespace, "d", n))
	}
	var got []int32
	for _, e := range w.events["d"] {
		got = append(got, e.replicas)
	}
	if diff := cmp.Diff([]int32{2, 6, 7}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
