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
)

// Upstream's fixed scale-up limit for HPAs without spec.behavior: at most
// twice the current replicas, and at least this many.
const (
	legacyScaleUpFactor  = 2
	legacyScaleUpMinimum = 4
)

// normalizeLegacy is the path of HPAs without spec.behavior: scale-down
// stabilization over the flag's window, then the fixed scale-up limit and
// the bounds.
func (s *Store) normalizeLegacy(st *hpaState, in Input) Result {
	stabilized, recorded := s.stabilizeLegacy(st.recommendationsWith(in.Initial), in.Recommendation, s.timeOf(in.Now))
	replicas, why := legacyLimits(in.CurrentReplicas, stabilized, in.MinReplicas, in.MaxReplicas)
	return result(in, stabilized, scaleDownStabilized, replicas, why, recorded)
}

// stabilizeLegacy returns the highest recommendation of the downscale
// window ending now, this one included, and the Record of this one at now.
func (s *Store) stabilizeLegacy(h recommendationHistory, recommendation int32, now time.Time) (int32, Record) {
	since := now.Add(-s.downscaleWindow)
	stabilized := recommendation
	// A window of zero holds nothing back: upstream's wall clock has always
	// moved on since an earlier pass, an injected clock may not have.
	if s.downscaleWindow > 0 {
		stabilized = h.highestFrom(since, recommendation)
	}
	return stabilized, recommendationAt(recommendation, now, since)
}

// legacyLimits clamps desired to [min, upper], where upper is the lower of
// maxReplicas and the fixed scale-up limit, and tells which bound applied.
// minReplicas wins over upper, as upstream.
func legacyLimits(current, desired, minReplicas, maxReplicas int32) (int32, verdict) {
	upper, upperWhy := legacyScaleUpLimit(current), scaleUpLimit
	if maxReplicas <= upper {
		upper, upperWhy = maxReplicas, tooManyReplicas
	}
	switch {
	case desired < minReplicas:
		return minReplicas, tooFewReplicas
	case desired > upper:
		return upper, upperWhy
	default:
		return desired, desiredWithinRange
	}
}

// legacyScaleUpLimit is max(2 x current, 4): it keeps one bogus metric
// sample from multiplying a workload many times over in one step.
func legacyScaleUpLimit(current int32) int32 {
	return clampInt32(max(legacyScaleUpFactor*int64(current), legacyScaleUpMinimum))
}

// clampInt32 brings v into the range of int32.
func clampInt32(v int64) int32 {
	return int32(min(max(v, math.MinInt32), math.MaxInt32))
}
