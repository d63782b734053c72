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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// Bounds of spec.syncPeriodSeconds (KEP-6003): a floor of 3 seconds, so
// that no HPA alone asks for a reconcile every second, and at least one
// reconcile an hour, so that an HPA never goes unwatched for long.
const (
	MinSyncPeriodSeconds int32 = 3
	MaxSyncPeriodSeconds int32 = 3600
)

// MinBehaviorSyncPeriodSeconds is the floor of the deprecated
// behavior.syncPeriodSeconds, as stored HPAs were accepted with it.
const MinBehaviorSyncPeriodSeconds int32 = 1

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

// SyncPeriod returns the HPA's own sync period: spec.syncPeriodSeconds or,
// while that is unset, the deprecated behavior.syncPeriodSeconds of an HPA
// stored with it, which keeps its meaning. It returns false when neither is
// set or the one that applies is outside its bounds (a stored object may
// predate the checks): the caller then uses its global period.
func (s *HorizontalPodAutoscalerSpec) SyncPeriod() (time.Duration, bool) {
	seconds, lowest := s.SyncPeriodSeconds, MinSyncPeriodSeconds
	if seconds == nil && s.Behavior != nil {
		seconds, lowest = s.Behavior.SyncPeriodSeconds, MinBehaviorSyncPeriodSeconds
	}
	if seconds == nil || *seconds < lowest || *seconds > MaxSyncPeriodSeconds {
		return 0, false
	}
	return time.Duration(*seconds) * time.Second, true
}
