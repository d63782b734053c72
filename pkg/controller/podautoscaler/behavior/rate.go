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
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// direction is the direction of a scale.
type direction int

const (
	scalingUp direction = iota
	scalingDown
)

// rateLimits bounds desired by the policies of its direction and by the
// HPA's bounds, and tells which bound applied. maxReplicas bounds only a
// scale-up and minReplicas only a scale-down, as upstream.
func rateLimits(st *hpaState, in Input, desired int32, up, down resolvedRules, now time.Time) (int32, verdict) {
	current := in.CurrentReplicas
	switch {
	case desired > current:
		upper, why := max(st.policyLimit(scalingUp, current, up, now), current), scaleUpLimit
		if in.MaxReplicas <= upper {
			upper, why = in.MaxReplicas, tooManyReplicas
		}
		if desired > upper {
			return upper, why
		}
	case desired < current:
		lower, why := min(st.policyLimit(scalingDown, current, down, now), current), scaleDownLimit
		if in.MinReplicas >= lower {
			lower, why = in.MinReplicas, tooFewReplicas
		}
		if desired < lower {
			return lower, why
		}
	}
	return desired, desiredWithinRange
}

// policyLimit is the furthest the policies of r let the replicas go in
// direction dir: the most replicas for a scale-up, the fewest for a
// scale-down. Each policy proposes a limit from the replicas at the start of
// its period; selectPolicy picks the proposal of the largest change (Max,
// the default) or of the smallest (Min). Disabled, or no usable policy,
// allows no change at all.
func (st *hpaState) policyLimit(dir direction, current int32, r resolvedRules, now time.Time) int32 {
	if r.selectPolicy == autoscalingv2.DisabledPolicySelect {
		return current
	}
	largestChange := r.selectPolicy != autoscalingv2.MinChangePolicySelect
	var chosen int64
	found := false
	for _, p := range r.policies {
		start := st.periodStart(current, p.PeriodSeconds, now)
		proposal, ok := propose(dir, start, p)
		switch {
		case !ok:
			continue
		case !found:
			chosen, found = proposal, true
		case (dir == scalingUp) == largestChange:
			chosen = max(chosen, proposal)
		default:
			chosen = min(chosen, proposal)
		}
	}
	if !found {
		return current
	}
	return clampInt32(chosen)
}

// periodStart is the replica count periodSeconds ago, as the scale events
// since then tell.
func (st *hpaState) periodStart(current, periodSeconds int32, now time.Time) int64 {
	since := now.Add(-seconds(periodSeconds))
	start := int64(current) - st.scaleUps.changeSince(since) + st.scaleDowns.changeSince(since)
	return int64(clampInt32(start))
}

// propose is the limit policy p sets from start in direction dir; false for
// a policy type it does not know.
func propose(dir direction, start int64, p autoscalingv2.HPAScalingPolicy) (int64, bool) {
	if dir == scalingUp {
		return grow(start, p)
	}
	return shrink(start, p)
}

// grow is the most replicas policy p allows from start. A Percent proposal
// rounds up, so that a small percentage still adds a replica. From zero
// replicas a Percent policy allows none, as upstream (see the package doc).
func grow(start int64, p autoscalingv2.HPAScalingPolicy) (int64, bool) {
	switch p.Type {
	case autoscalingv2.PodsScalingPolicy:
		return start + int64(p.Value), true
	case autoscalingv2.PercentScalingPolicy:
		return floatToInt64(math.Ceil(float64(start) * (1 + percentFraction(p.Value)))), true
	default:
		return 0, false
	}
}

// shrink is the fewest replicas policy p allows from start. A Percent
// proposal drops its fraction (truncates towards zero), as upstream.
func shrink(start int64, p autoscalingv2.HPAScalingPolicy) (int64, bool) {
	switch p.Type {
	case autoscalingv2.PodsScalingPolicy:
		return start - int64(p.Value), true
	case autoscalingv2.PercentScalingPolicy:
		return floatToInt64(math.Trunc(float64(start) * (1 - percentFraction(p.Value)))), true
	default:
		return 0, false
	}
}

// percentFraction is a policy's percentage as a fraction. Percent limits
// are computed in floating point, as upstream, and users see its rounding
// (50 + 10% allows 56, 20 - 80% keeps 3), so the operations and their order
// are upstream's: start x (1 +/- value/100).
func percentFraction(value int32) float64 {
	return float64(value) / 100
}

// floatToInt64 converts a whole float64 to int64, saturating where
// upstream's conversion to int32 is undefined; clampInt32 then bounds it.
func floatToInt64(f float64) int64 {
	switch {
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	default:
		return int64(f)
	}
}
