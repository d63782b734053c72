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

func TestNormalizeLegacy(t *testing.T) {
	const window = 5 * time.Minute
	runScenarios(t, []scenario{
		{
			name: "legacy applies a recommendation within range", flagWindow: window,
			current: 3, recommendation: 5, min: 1, max: 10,
			want: 5, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy scale-up limit is max(2x, 4)", flagWindow: window,
			current: 5, recommendation: 20, min: 1, max: 50,
			want: 10, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name: "legacy scale-up limit is at least 4 replicas", flagWindow: window,
			current: 1, recommendation: 10, min: 1, max: 50,
			want: 4, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name: "legacy maxReplicas below the scale-up limit reports TooManyReplicas", flagWindow: window,
			current: 5, recommendation: 20, min: 1, max: 8,
			want: 8, wantAble: ready(), wantLimited: limited("TooManyReplicas"),
		},
		{
			name: "legacy maxReplicas equal to the scale-up limit reports TooManyReplicas", flagWindow: window,
			current: 5, recommendation: 20, min: 1, max: 10,
			want: 10, wantAble: ready(), wantLimited: limited("TooManyReplicas"),
		},
		{
			name: "legacy clamps to minReplicas", flagWindow: window,
			current: 5, recommendation: 1, min: 3,
			want: 3, wantAble: ready(), wantLimited: limited("TooFewReplicas"),
		},
		{
			name: "legacy scale-down stabilization keeps the highest recommendation in the window", flagWindow: window,
			history: []past{recommended(4*time.Minute, 8, 6), recommended(3*time.Minute, 8, 8), recommended(time.Minute, 8, 5)},
			current: 8, recommendation: 3, min: 1,
			want: 8, stabilized: ptr.To[int32](8), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "legacy recommendations older than the window no longer count", flagWindow: window,
			history: []past{recommended(6*time.Minute, 8, 8)},
			current: 8, recommendation: 3, min: 1,
			want: 3, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy recommendation exactly one window old still counts, as upstream", flagWindow: window,
			history: []past{recommended(window, 8, 8)},
			current: 8, recommendation: 3, min: 1,
			want: 8, stabilized: ptr.To[int32](8), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "legacy recommendation a nanosecond older than the window no longer counts", flagWindow: window,
			history: []past{recommended(window+time.Nanosecond, 8, 8)},
			current: 8, recommendation: 3, min: 1,
			want: 3, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy recommendation just inside the window still counts", flagWindow: window,
			history: []past{recommended(window-time.Second, 8, 8)},
			current: 8, recommendation: 3, min: 1,
			want: 8, stabilized: ptr.To[int32](8), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "legacy initial recommendation holds a scale-down for the window", flagWindow: window,
			history: []past{initial(time.Minute, 6)},
			current: 6, recommendation: 2, min: 1,
			want: 6, stabilized: ptr.To[int32](6), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "legacy initial recommendation expires after the window", flagWindow: window,
			history: []past{initial(window+time.Second, 6)},
			current: 6, recommendation: 2, min: 1,
			want: 2, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "Initial keeps an existing history", flagWindow: window,
			history: []past{recommended(2*time.Minute, 3, 3), initial(time.Minute, 7)},
			current: 3, recommendation: 2, min: 1,
			want: 3, stabilized: ptr.To[int32](3), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "legacy zero downscale window applies a scale-down at once", flagWindow: 0,
			history: []past{recommended(time.Second, 8, 8)},
			current: 8, recommendation: 3, min: 1,
			want: 3, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy scale-up is not held back by lower recent recommendations", flagWindow: window,
			history: []past{recommended(time.Minute, 3, 2)},
			current: 3, recommendation: 6, min: 1,
			want: 6, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy history holds the raw recommendation, not the applied one", flagWindow: window,
			history: []past{recommended(time.Minute, 5, 20)},
			current: 10, recommendation: 3, min: 1,
			want: 20, stabilized: ptr.To[int32](20), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "legacy history holds the raw recommendation, not the stabilized one", flagWindow: window,
			history: []past{recommended(6*time.Minute, 9, 9), recommended(2*time.Minute, 9, 3)},
			current: 9, recommendation: 2, min: 1,
			want: 3, stabilized: ptr.To[int32](3), wantAble: downStabilized(), wantLimited: within(),
		},
		{
			name: "legacy stabilized recommendation is still bounded by maxReplicas", flagWindow: window,
			history: []past{recommended(time.Minute, 10, 12)},
			current: 10, recommendation: 5, min: 1, max: 8,
			want: 8, stabilized: ptr.To[int32](12), wantAble: downStabilized(), wantLimited: limited("TooManyReplicas"),
		},
		{
			name: "legacy scales from zero to at most 4 replicas", flagWindow: window,
			current: 0, recommendation: 10, min: 0, max: 20,
			want: 4, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name: "legacy minReplicas zero allows a zero recommendation", flagWindow: 0,
			current: 2, recommendation: 0, min: 0,
			want: 0, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy recommendation equal to current is within range", flagWindow: window,
			current: 4, recommendation: 4, min: 1,
			want: 4, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy scale-up limit does not overflow near MaxInt32", flagWindow: window,
			current: maxInt32/2 + 1, recommendation: maxInt32, min: 1, max: maxInt32,
			want: maxInt32, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "legacy ignores the recommendations of other HPAs", flagWindow: window,
			history: []past{recommendedFor(otherKey, time.Minute, 9, 9)},
			current: 8, recommendation: 3, min: 1,
			want: 3, wantAble: ready(), wantLimited: within(),
		},
		{
			name: "Forget drops the recommendation history", flagWindow: window,
			history: []past{recommended(time.Minute, 9, 9), forgot(30 * time.Second)},
			current: 9, recommendation: 3, min: 1,
			want: 3, wantAble: ready(), wantLimited: within(),
		},
	})
}
