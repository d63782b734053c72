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

	"k8s.io/utils/ptr"
)

func TestNormalizeStabilization(t *testing.T) {
	const flag = 5 * time.Minute
	runScenarios(t, []scenario{
		{
			name: "scale-down window falls back to the controller flag when unset", flagWindow: flag,
			behavior: defaults(),
			history:  []past{recommended(2*time.Minute, 9, 9)},
			current:  9, recommendation: 4,
			want: 9, stabilized: ptr.To[int32](9), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "scale-down window from the rules overrides the flag", flagWindow: flag,
			behavior: withDown(window(60)),
			history:  []past{recommended(2*time.Minute, 9, 9)},
			current:  9, recommendation: 4,
			want: 4, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "scale-down window of zero in the rules turns stabilization off despite the flag", flagWindow: flag,
			behavior: withDown(window(0)),
			history:  []past{recommended(10*time.Second, 9, 9)},
			current:  9, recommendation: 4,
			want: 4, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "scale-down stabilization keeps the highest recommendation in the window",
			behavior: withDown(window(300)),
			history:  []past{recommended(4*time.Minute, 9, 7), recommended(3*time.Minute, 9, 9), recommended(time.Minute, 9, 5)},
			current:  9, recommendation: 3,
			want: 9, stabilized: ptr.To[int32](9), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name:     "scale-down stabilization never raises above current replicas",
			behavior: withDown(window(300)),
			history:  []past{recommended(time.Minute, 12, 12)},
			current:  8, recommendation: 3,
			want: 8, stabilized: ptr.To[int32](8), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name:     "scale-down stabilization goes down to the highest recent recommendation",
			behavior: withDown(window(300)),
			history:  []past{recommended(time.Minute, 8, 6)},
			current:  8, recommendation: 3,
			want: 6, stabilized: ptr.To[int32](6), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name:     "a recommendation exactly one scale-down window old no longer counts",
			behavior: withDown(window(60)),
			history:  []past{recommended(time.Minute, 9, 9)},
			current:  9, recommendation: 4,
			want: 4, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "scale-up stabilization keeps the lowest recommendation in the window",
			behavior: with(window(120), window(0)),
			history:  []past{recommended(90*time.Second, 3, 4), recommended(30*time.Second, 3, 6)},
			current:  3, recommendation: 10,
			want: 4, stabilized: ptr.To[int32](4), wantAble: upStabilized(), wantLimited: within(),
		},
		{
			name:     "scale-up stabilization never lowers below current replicas",
			behavior: with(window(120), window(0)),
			history:  []past{recommended(30*time.Second, 5, 2)},
			current:  5, recommendation: 10,
			want: 5, stabilized: ptr.To[int32](5), wantAble: upStabilized(), wantLimited: within(),
		},
		{
			name:     "scale-up recommendations older than the window no longer count",
			behavior: with(window(60), window(0)),
			history:  []past{recommended(61*time.Second, 5, 2)},
			current:  5, recommendation: 10,
			want: 10, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "the default scale-up window is zero",
			behavior: defaults(),
			history:  []past{recommended(time.Second, 5, 2)},
			current:  5, recommendation: 10,
			want: 10, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "stabilization holds current replicas when recommendations straddle them on a scale-down",
			behavior: with(window(60), window(60)),
			history:  []past{recommended(30*time.Second, 5, 8)},
			current:  5, recommendation: 3,
			want: 5, stabilized: ptr.To[int32](5), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name:     "stabilization holds current replicas when recommendations straddle them on a scale-up",
			behavior: with(window(60), window(60)),
			history:  []past{recommended(30*time.Second, 5, 3)},
			current:  5, recommendation: 8,
			want: 5, stabilized: ptr.To[int32](5), wantAble: upStabilized(), wantLimited: within(),
		},
		{
			name:     "a recommendation equal to current replicas is ready for a new scale",
			behavior: withDown(window(300)),
			history:  []past{recommended(time.Minute, 5, 9)},
			current:  5, recommendation: 5,
			want: 5, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "behavior history holds the raw recommendation, not the applied one",
			behavior: with(window(120), window(0)),
			history:  []past{recommended(time.Minute, 10, 40)},
			current:  10, recommendation: 50,
			want: 20, stabilized: ptr.To[int32](40), wantAble: upStabilized(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "behavior history holds the raw recommendation, not the stabilized one",
			behavior: withDown(window(300)),
			history:  []past{recommended(6*time.Minute, 9, 9), recommended(2*time.Minute, 9, 3)},
			current:  9, recommendation: 2,
			want: 3, stabilized: ptr.To[int32](3), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name:     "stabilized recommendation is then limited by the policies",
			behavior: with(window(0), rules(ptr.To[int32](300), "MaxChange", pods(1, 60))),
			history:  []past{recommended(time.Minute, 10, 7)},
			current:  10, recommendation: 2,
			want: 9, stabilized: ptr.To[int32](7), wantAble: downStabilized(), wantLimited: limited("ScaleDownLimit"),
		},
	})
}
