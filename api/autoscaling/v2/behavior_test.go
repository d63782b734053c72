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

package v2

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
)

func TestSyncPeriod(t *testing.T) {
	seconds := ptr.To[int32]
	cases := []struct {
		name string
		// top is spec.syncPeriodSeconds, old the deprecated
		// behavior.syncPeriodSeconds.
		top, old *int32
		want     time.Duration
		ok       bool
	}{
		{name: "neither field: no period of its own"},
		{name: "the minimum of 3 seconds is a period", top: seconds(3), want: 3 * time.Second, ok: true},
		{name: "the maximum of one hour is a period", top: seconds(3600), want: time.Hour, ok: true},
		{name: "2 seconds stored before validation is no period", top: seconds(2)},
		{name: "a value above one hour stored before validation is no period", top: seconds(3601)},
		{name: "a stored behavior.syncPeriodSeconds keeps its meaning", old: seconds(2), want: 2 * time.Second, ok: true},
		{name: "a stored behavior.syncPeriodSeconds of 1, its old minimum, is a period", old: seconds(1), want: time.Second, ok: true},
		{name: "a stored behavior.syncPeriodSeconds of 0 is no period", old: seconds(0)},
		{name: "a negative stored behavior.syncPeriodSeconds is no period", old: seconds(-5)},
		{name: "spec.syncPeriodSeconds wins over the deprecated field", top: seconds(30), old: seconds(2), want: 30 * time.Second, ok: true},
		{name: "an out-of-bounds spec.syncPeriodSeconds does not fall back to the deprecated field", top: seconds(1), old: seconds(2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := HorizontalPodAutoscalerSpec{SyncPeriodSeconds: tc.top}
			if tc.old != nil {
				spec.Behavior = &HorizontalPodAutoscalerBehavior{SyncPeriodSeconds: tc.old}
			}
			got, ok := spec.SyncPeriod()
			if got != tc.want || ok != tc.ok {
				t.Errorf("SyncPeriod() = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestBehaviorNativeConversion(t *testing.T) {
	up := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](30)}
	down := &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect)}
	t.Run("nil stays nil both ways", func(t *testing.T) {
		if got := (*HorizontalPodAutoscalerBehavior)(nil).Native(); got != nil {
			t.Errorf("Native() of nil = %+v", got)
		}
		if got := BehaviorFromNative(nil); got != nil {
			t.Errorf("BehaviorFromNative(nil) = %+v", got)
		}
	})
	t.Run("the scaling rules cross over and syncPeriodSeconds stays behind", func(t *testing.T) {
		native := (&HorizontalPodAutoscalerBehavior{ScaleUp: up, ScaleDown: down, SyncPeriodSeconds: ptr.To[int32](2)}).Native()
		if native.ScaleUp != up || native.ScaleDown != down {
			t.Errorf("Native() = %+v, want the same rules", native)
		}
		back := BehaviorFromNative(native)
		if back.ScaleUp != up || back.ScaleDown != down || back.SyncPeriodSeconds != nil {
			t.Errorf("BehaviorFromNative() = %+v, want the same rules and no syncPeriodSeconds", back)
		}
	})
}
