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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// Scale is the scale event of the controller changing an HPA's replicas
// from prev to next at the time at (zero: the Store's clock), for the rate
// policies of later calls to Normalize once committed. Without
// spec.behavior there are no policies to feed, and it is the zero Record;
// so is a change of zero replicas. Each direction keeps its events as
// upstream does (see eventHistory): by the longest policy period of that
// direction alone.
func (s *Store) Scale(behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, prev, next int32, at time.Time) Record {
	if behavior == nil || prev == next {
		return Record{}
	}
	now := s.timeOf(at)
	change := int64(next) - int64(prev)
	if change > 0 {
		return Record{kind: scaleUpRecord, change: change, at: now, staleAt: now.Add(-longestPeriod(scaleUpRules(behavior)))}
	}
	return Record{kind: scaleDownRecord, change: -change, at: now, staleAt: now.Add(-longestPeriod(scaleDownRules(behavior, s.downscaleWindow)))}
}
