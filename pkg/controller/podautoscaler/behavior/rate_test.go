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
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
)

func TestNormalizeRatePolicies(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name:     "default scale-up rules allow the larger of 4 pods and 100%",
			behavior: defaults(), current: 10, recommendation: 50,
			want: 20, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "default scale-up rules allow 4 pods from a small base",
			behavior: defaults(), current: 1, recommendation: 10,
			want: 5, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "default scale-down rules allow going straight to minReplicas",
			behavior: defaults(), current: 10, recommendation: 1, min: 1,
			want: 1, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "pods policy caps the scale-up per period",
			behavior: withUp(maxOf(pods(2, 60))), current: 5, recommendation: 10,
			want: 7, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "percent policy rounds up",
			behavior: withUp(maxOf(percent(10, 60))), current: 5, recommendation: 10,
			want: 6, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "percent policy rounds upstream's float product up: 50 + 10% allows 56",
			behavior: withUp(maxOf(percent(10, 60))), current: 50, recommendation: 100,
			want: 56, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "selectPolicy Max picks the largest change",
			behavior: withUp(maxOf(pods(2, 60), percent(100, 60))), current: 5, recommendation: 20,
			want: 10, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "selectPolicy Min picks the smallest change",
			behavior: withUp(minOf(pods(2, 60), percent(100, 60))), current: 5, recommendation: 20,
			want: 7, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "unset selectPolicy means Max",
			behavior: withUp(rules(ptr.To[int32](0), "", pods(2, 60), percent(100, 60))), current: 5, recommendation: 20,
			want: 10, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "Disabled scale-up keeps current replicas",
			behavior: withUp(disabled()), current: 5, recommendation: 20,
			want: 5, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "Disabled scale-down keeps current replicas",
			behavior: withDown(disabled()), current: 5, recommendation: 1, min: 1,
			want: 5, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "Disabled scale-up still allows a scale-down",
			behavior: withUp(disabled()), current: 5, recommendation: 2, min: 1,
			want: 2, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "maxReplicas below the policy limit reports TooManyReplicas",
			behavior: withUp(maxOf(pods(10, 60))), current: 5, recommendation: 30, max: 8,
			want: 8, wantAble: ready(), wantLimited: limited("TooManyReplicas"),
		},
		{
			name:     "maxReplicas equal to the policy limit reports TooManyReplicas",
			behavior: withUp(maxOf(pods(3, 60))), current: 5, recommendation: 20, max: 8,
			want: 8, wantAble: ready(), wantLimited: limited("TooManyReplicas"),
		},
		{
			name:     "a scale-up within the limits is not limited",
			behavior: withUp(maxOf(pods(5, 60))), current: 5, recommendation: 9,
			want: 9, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "pods policy caps the scale-down per period",
			behavior: withDown(maxOf(pods(2, 60))), current: 10, recommendation: 3, min: 1,
			want: 8, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "percent scale-down truncates upstream's float product: 20 - 80% keeps 3",
			behavior: withDown(maxOf(percent(80, 60))), current: 20, recommendation: 1, min: 1,
			want: 3, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "percent scale-down drops the fraction",
			behavior: withDown(maxOf(percent(50, 60))), current: 5, recommendation: 1, min: 1,
			want: 2, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "selectPolicy Max on scale-down allows the largest removal",
			behavior: withDown(maxOf(pods(1, 60), percent(50, 60))), current: 10, recommendation: 1, min: 1,
			want: 5, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "selectPolicy Min on scale-down allows the smallest removal",
			behavior: withDown(minOf(pods(1, 60), percent(50, 60))), current: 10, recommendation: 1, min: 1,
			want: 9, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "unset scale-down selectPolicy means Max",
			behavior: withDown(rules(ptr.To[int32](0), "", pods(1, 60), percent(50, 60))), current: 10, recommendation: 1, min: 1,
			want: 5, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "minReplicas above the scale-down limit reports TooFewReplicas",
			behavior: withDown(maxOf(percent(100, 60))), current: 10, recommendation: 1, min: 3,
			want: 3, wantAble: ready(), wantLimited: limited("TooFewReplicas"),
		},
		{
			name:     "minReplicas equal to the scale-down limit reports TooFewReplicas",
			behavior: withDown(maxOf(pods(7, 60))), current: 10, recommendation: 1, min: 3,
			want: 3, wantAble: ready(), wantLimited: limited("TooFewReplicas"),
		},
		{
			name:     "a scale-down within the limits is not limited",
			behavior: withDown(maxOf(pods(5, 60))), current: 10, recommendation: 7, min: 1,
			want: 7, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "a percent scale-down above 100% stops at minReplicas",
			behavior: withDown(maxOf(percent(200, 60))), current: 10, recommendation: 0, min: 2,
			want: 2, wantAble: ready(), wantLimited: limited("TooFewReplicas"),
		},
		{
			name:     "scale-up events within the period count against the pods policy",
			behavior: withUp(maxOf(pods(4, 60))),
			history:  []past{scaled(30*time.Second, 5, 8)},
			current:  8, recommendation: 20,
			want: 9, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "scale-up events older than the period no longer count",
			behavior: withUp(maxOf(pods(4, 60))),
			history:  []past{scaled(61*time.Second, 5, 8)},
			current:  8, recommendation: 20,
			want: 12, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "a scale event exactly one period old no longer counts",
			behavior: withUp(maxOf(pods(4, 60))),
			history:  []past{scaled(60*time.Second, 5, 8)},
			current:  8, recommendation: 20,
			want: 12, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "many recent scale-ups hold replicas at current",
			behavior: withUp(maxOf(pods(4, 60))),
			history:  []past{scaled(40*time.Second, 2, 6), scaled(20*time.Second, 6, 10)},
			current:  10, recommendation: 20,
			want: 10, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "percent policy counts from the replicas at the start of the period",
			behavior: withUp(maxOf(percent(100, 60))),
			history:  []past{scaled(30*time.Second, 4, 8)},
			current:  8, recommendation: 30,
			want: 8, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "scale-downs within the period raise the base of a scale-up",
			behavior: withUp(maxOf(percent(100, 60))),
			history:  []past{scaled(20*time.Second, 10, 6)},
			current:  6, recommendation: 30,
			want: 20, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "scale-downs within the period count against the scale-down policy",
			behavior: withDown(maxOf(pods(3, 60))),
			history:  []past{scaled(30*time.Second, 10, 7)},
			current:  7, recommendation: 1, min: 1,
			want: 7, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "scale-ups within the period lower the base of a scale-down",
			behavior: withDown(maxOf(pods(2, 60))),
			history:  []past{scaled(30*time.Second, 4, 8)},
			current:  8, recommendation: 1, min: 1,
			want: 2, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "each policy counts the events of its own period",
			behavior: withUp(minOf(pods(4, 30), pods(8, 120))),
			history:  []past{scaled(time.Minute, 2, 8)},
			current:  8, recommendation: 30,
			want: 10, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "a scale-down older than the scale-down periods gives its slot to the next scale-down, as upstream",
			behavior: with(maxOf(percent(100, 600)), maxOf(pods(1, 15))),
			history:  []past{scaled(300*time.Second, 10, 9), scaled(100*time.Second, 9, 8)},
			current:  8, recommendation: 40,
			want: 18, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "a stale scale-down whose slot no newer one took still counts for the scale-up period",
			behavior: with(maxOf(percent(100, 600)), maxOf(pods(1, 15))),
			history:  []past{scaled(300*time.Second, 10, 9), scaled(290*time.Second, 9, 8), scaled(100*time.Second, 8, 7)},
			current:  7, recommendation: 40,
			want: 18, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "scale-ups are kept by the scale-up periods only: +2 then +4 past a 15 s period leaves +4 for a 600 s scale-down",
			behavior: with(maxOf(pods(4, 15)), maxOf(percent(50, 600))),
			history:  []past{scaled(120*time.Second, 2, 4), scaled(60*time.Second, 4, 8)},
			current:  8, recommendation: 1, min: 1,
			want: 2, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "a scale-up not yet replaced keeps counting for a longer scale-down period",
			behavior: with(maxOf(pods(4, 15)), maxOf(percent(50, 600))),
			history:  []past{scaled(120*time.Second, 2, 4)},
			current:  4, recommendation: 1, min: 1,
			want: 1, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "a scale event exactly one longest period old is not yet stale",
			behavior: with(maxOf(pods(4, 60)), maxOf(percent(50, 600))),
			history:  []past{scaled(120*time.Second, 2, 4), scaled(60*time.Second, 4, 8)},
			current:  8, recommendation: 1, min: 1,
			want: 1, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "scale events recorded without behavior do not count",
			behavior: withUp(maxOf(pods(4, 60))),
			history:  []past{scaledWithout(30*time.Second, 5, 8)},
			current:  8, recommendation: 20,
			want: 12, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "Forget drops the scale events",
			behavior: withUp(maxOf(pods(4, 60))),
			history:  []past{scaled(30*time.Second, 5, 8), forgot(10 * time.Second)},
			current:  8, recommendation: 20,
			want: 12, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "scale-up rules without policies take the default policies",
			behavior: withUp(rules(ptr.To[int32](0), autoscalingv2.MaxChangePolicySelect)),
			current:  10, recommendation: 50,
			want: 20, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "an empty policy list allows no change",
			behavior: withUp(rules(ptr.To[int32](0), autoscalingv2.MaxChangePolicySelect, []autoscalingv2.HPAScalingPolicy{}...)),
			current:  5, recommendation: 10,
			want: 5, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "an unknown policy type is ignored",
			behavior: withUp(maxOf(autoscalingv2.HPAScalingPolicy{Type: "Bogus", Value: 100, PeriodSeconds: 60}, pods(1, 60))),
			current:  5, recommendation: 10,
			want: 6, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "an unknown scale-down policy type is ignored",
			behavior: withDown(maxOf(autoscalingv2.HPAScalingPolicy{Type: "Bogus", Value: 100, PeriodSeconds: 60}, pods(1, 60))),
			current:  5, recommendation: 1, min: 1,
			want: 4, wantAble: ready(), wantLimited: limited("ScaleDownLimit"),
		},
		{
			name:     "only unknown policy types allow no change",
			behavior: withUp(maxOf(autoscalingv2.HPAScalingPolicy{Type: "Bogus", Value: 100, PeriodSeconds: 60})),
			current:  5, recommendation: 10,
			want: 5, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "a huge pods policy does not overflow",
			behavior: withUp(maxOf(pods(maxInt32, 60))),
			current:  10, recommendation: 1000, max: maxInt32,
			want: 1000, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "a huge percent policy does not overflow",
			behavior: withUp(maxOf(percent(maxInt32, 60))),
			current:  1000, recommendation: 5000, max: maxInt32,
			want: 5000, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "scale-down rules alone keep the default scale-up rules",
			behavior: withDown(maxOf(pods(1, 60))),
			current:  10, recommendation: 50,
			want: 20, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "scale-up rules alone keep the default scale-down rules",
			behavior: withUp(maxOf(pods(1, 60))),
			current:  10, recommendation: 2, min: 1,
			want: 2, wantAble: ready(), wantLimited: within(),
		},
	})
}
