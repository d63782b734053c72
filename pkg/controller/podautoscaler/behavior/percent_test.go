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
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// upstreamPercentLimit states upstream v1.36's Percent rule, independently
// of the code under test: the limit is the replicas at the start of the
// period times (1 + value/100) for a scale-up, rounded up, and times
// (1 - value/100) for a scale-down, truncated, all in float64.
func upstreamPercentLimit(dir direction, start, value int32) int64 {
	if dir == scalingUp {
		return int64(math.Ceil(float64(start) * (1 + float64(value)/100)))
	}
	return int64(float64(start) * (1 - float64(value)/100))
}

// TestPercentLimitsMatchUpstreamExhaustively compares every start up to
// 2,000 replicas and every percentage from 1 to 1,000, in both directions,
// with upstream's floating point rule. Exact integer arithmetic differs in
// over a thousand of these, which users would see as a different count.
func TestPercentLimitsMatchUpstreamExhaustively(t *testing.T) {
	for _, dir := range []direction{scalingUp, scalingDown} {
		mismatches := 0
		for start := int32(0); start <= 2000; start++ {
			for value := int32(1); value <= 1000; value++ {
				p := autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: value, PeriodSeconds: 60}
				got, ok := propose(dir, int64(start), p)
				want := upstreamPercentLimit(dir, start, value)
				if !ok || got != want {
					if mismatches < 10 {
						t.Errorf("direction %d: %d replicas at %d%%: limit %d, upstream %d", dir, start, value, got, want)
					}
					mismatches++
				}
			}
		}
		if mismatches > 0 {
			t.Errorf("direction %d: %d combinations differ from upstream", dir, mismatches)
		}
	}
}

// TestPercentLimitsRoundAsUpstream pins examples of upstream's rounding
// where exact arithmetic gives another count.
func TestPercentLimitsRoundAsUpstream(t *testing.T) {
	cases := []struct {
		name  string
		dir   direction
		start int64
		value int32
		want  int64
	}{
		{name: "20 replicas less 80% keeps 3 (20 x 0.2 is just under 4)", dir: scalingDown, start: 20, value: 80, want: 3},
		{name: "50 replicas plus 10% allows 56 (50 x 1.1 is just over 55)", dir: scalingUp, start: 50, value: 10, want: 56},
		{name: "10 replicas less 50% keeps 5", dir: scalingDown, start: 10, value: 50, want: 5},
		{name: "5 replicas plus 10% rounds up to 6", dir: scalingUp, start: 5, value: 10, want: 6},
		{name: "3 replicas less 150% truncates towards zero to -1", dir: scalingDown, start: 3, value: 150, want: -1},
		{name: "zero replicas plus any percent stays at zero", dir: scalingUp, start: 0, value: 1000, want: 0},
		{name: "a percent limit beyond int32 saturates", dir: scalingUp, start: 1000, value: math.MaxInt32, want: math.MaxInt32},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: tc.value, PeriodSeconds: 60}
			if got, _ := propose(tc.dir, tc.start, p); got != tc.want {
				t.Errorf("limit %d, want %d", got, tc.want)
			}
		})
	}
}
