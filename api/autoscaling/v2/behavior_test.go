package v2

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
)

func TestSyncPeriod(t *testing.T) {
	withPeriod := func(seconds *int32) *HorizontalPodAutoscalerBehavior {
		return &HorizontalPodAutoscalerBehavior{SyncPeriodSeconds: seconds}
	}
	cases := []struct {
		name     string
		behavior *HorizontalPodAutoscalerBehavior
		want     time.Duration
		ok       bool
	}{
		{name: "no behavior has no period of its own", behavior: nil},
		{name: "a behavior without syncPeriodSeconds has no period of its own", behavior: withPeriod(nil)},
		{name: "the minimum of 1 second is a period", behavior: withPeriod(ptr.To[int32](1)), want: time.Second, ok: true},
		{name: "the maximum of one hour is a period", behavior: withPeriod(ptr.To[int32](3600)), want: time.Hour, ok: true},
		{name: "0 stored before validation is no period", behavior: withPeriod(ptr.To[int32](0))},
		{name: "a negative value stored before validation is no period", behavior: withPeriod(ptr.To[int32](-5))},
		{name: "a value above one hour stored before validation is no period", behavior: withPeriod(ptr.To[int32](3601))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := HorizontalPodAutoscalerSpec{Behavior: tc.behavior}
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
