package v2

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// Bounds of behavior.syncPeriodSeconds (KEP-6003): no sub-second period,
// and at least one reconcile an hour, so that an HPA never goes unwatched
// for long.
const (
	MinSyncPeriodSeconds int32 = 1
	MaxSyncPeriodSeconds int32 = 3600
)

// Native returns b as native autoscaling/v2 has it: the scaling rules,
// shared with b, without syncPeriodSeconds, which native autoscaling/v2
// lacks. A nil b gives nil.
func (b *HorizontalPodAutoscalerBehavior) Native() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	if b == nil {
		return nil
	}
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: b.ScaleUp, ScaleDown: b.ScaleDown}
}

// BehaviorFromNative returns a native behavior as the extended type, its
// scaling rules shared with in; syncPeriodSeconds stays unset. A nil in
// gives nil.
func BehaviorFromNative(in *autoscalingv2.HorizontalPodAutoscalerBehavior) *HorizontalPodAutoscalerBehavior {
	if in == nil {
		return nil
	}
	return &HorizontalPodAutoscalerBehavior{ScaleUp: in.ScaleUp, ScaleDown: in.ScaleDown}
}

// SyncPeriod returns behavior.syncPeriodSeconds as a duration, and false
// when it is unset or outside its bounds (a stored object may predate the
// checks): the caller then uses its global period.
func (s *HorizontalPodAutoscalerSpec) SyncPeriod() (time.Duration, bool) {
	if s.Behavior == nil || s.Behavior.SyncPeriodSeconds == nil {
		return 0, false
	}
	seconds := *s.Behavior.SyncPeriodSeconds
	if seconds < MinSyncPeriodSeconds || seconds > MaxSyncPeriodSeconds {
		return 0, false
	}
	return time.Duration(seconds) * time.Second, true
}
