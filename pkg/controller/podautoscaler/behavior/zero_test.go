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

// TestNormalizeFromZero pins the scale-from-zero rule of the package doc: at
// zero replicas a Percent scale-up policy counts from zero, as upstream, so
// alone it allows no scale-up.
func TestNormalizeFromZero(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name:     "percent policy from zero replicas allows no scale-up, as upstream",
			behavior: withUp(maxOf(percent(100, 15))), current: 0, recommendation: 5,
			want: 0, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "even a large percent policy from zero allows no scale-up",
			behavior: withUp(maxOf(percent(900, 15))), current: 0, recommendation: 5,
			want: 0, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "a percent policy beside a pods policy from zero: the pods policy brings replicas back",
			behavior: withUp(maxOf(percent(100, 15), pods(2, 15))), current: 0, recommendation: 5,
			want: 2, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "pods policy from zero adds its value",
			behavior: withUp(maxOf(pods(3, 15))), current: 0, recommendation: 5,
			want: 3, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "default rules from zero allow 4 replicas",
			behavior: defaults(), current: 0, recommendation: 10,
			want: 4, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "Disabled scale-up stays at zero",
			behavior: withUp(disabled()), current: 0, recommendation: 5,
			want: 0, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "a scale-up from zero within the period is the percent base of zero",
			behavior: withUp(maxOf(percent(100, 60))),
			history:  []past{scaled(5*time.Second, 0, 1)},
			current:  1, recommendation: 5,
			want: 1, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "a zero recommendation at zero replicas stays at zero",
			behavior: withUp(maxOf(percent(100, 15))), current: 0, recommendation: 0,
			want: 0, wantAble: ready(), wantLimited: within(),
		},
		{
			name:     "a recent scale-down to zero gives the percent base",
			behavior: withUp(maxOf(percent(100, 60))),
			history:  []past{scaled(5*time.Second, 3, 0)},
			current:  0, recommendation: 10,
			want: 6, wantAble: ready(), wantLimited: limited("ScaleUpLimit"),
		},
		{
			name:     "scale-up stabilization applies to a scale-up from zero",
			behavior: with(window(60), window(0)),
			history:  []past{recommended(30*time.Second, 0, 1)},
			current:  0, recommendation: 6,
			want: 1, stabilized: ptr.To[int32](1), wantAble: upStabilized(), wantLimited: within(),
		},
		{
			name:     "maxReplicas bounds a scale-up from zero",
			behavior: withUp(maxOf(pods(9, 15))), current: 0, recommendation: 20, max: 3,
			want: 3, wantAble: ready(), wantLimited: limited("TooManyReplicas"),
		},
	})
}
