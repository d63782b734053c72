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

import "time"

// normalizeWithBehavior is the path of HPAs with spec.behavior:
// stabilization in both directions, then the rate policies and the bounds.
func (s *Store) normalizeWithBehavior(st *hpaState, in Input) Result {
	up := scaleUpRules(in.Behavior)
	down := scaleDownRules(in.Behavior, s.downscaleWindow)
	now := s.timeOf(in.Now)
	stabilized, why, recorded := stabilize(st.recommendationsWith(in.Initial), in, up.window, down.window, now)
	replicas, limitWhy := rateLimits(st, in, stabilized, up, down, now)
	return result(in, stabilized, why, replicas, limitWhy, recorded)
}

// stabilize moves the current replicas towards the recommendation no
// further than the recent recommendations allow: up to at most the lowest
// recommendation of the scale-up window, down to at least the highest one
// of the scale-down window. It returns the stabilized count with the
// AbleToScale reason for a change, and the Record of the recommendation.
func stabilize(h recommendationHistory, in Input, upWindow, downWindow time.Duration, now time.Time) (int32, verdict, Record) {
	upSince := now.Add(-upWindow)
	downSince := now.Add(-downWindow)
	floor := h.lowestSince(upSince, in.Recommendation)
	ceiling := h.highestSince(downSince, in.Recommendation)
	stabilized := min(max(in.CurrentReplicas, floor), ceiling)
	recorded := recommendationAt(in.Recommendation, now, earliest(upSince, downSince))
	if in.Recommendation >= in.CurrentReplicas {
		return stabilized, scaleUpStabilized, recorded
	}
	return stabilized, scaleDownStabilized, recorded
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
