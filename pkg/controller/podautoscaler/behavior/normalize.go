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

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
)

// Input is what Normalize needs to know about one HPA at one reconcile.
type Input struct {
	// Key identifies the HPA: "namespace/name".
	Key string
	// Behavior is spec.behavior; nil selects the legacy path.
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior
	// CurrentReplicas is the target's replica count (its scale's
	// spec.replicas).
	CurrentReplicas int32
	// Recommendation is the replica count the metrics ask for: the maximum
	// over all valid metrics.
	Recommendation int32
	// MinReplicas and MaxReplicas are the HPA's bounds, minReplicas
	// defaulted.
	MinReplicas int32
	MaxReplicas int32
	// Now is the time of the reconcile: the windows and policy periods end
	// at it, and the recommendation is recorded at it. Zero means the
	// Store's clock.
	Now time.Time
	// Initial is the HPA's first recommendation (Store.Initial) that the
	// caller has yet to commit: Normalize reads it as if it were recorded.
	Initial Record
}

// Result is the outcome of Normalize.
type Result struct {
	// Replicas is the replica count to apply.
	Replicas int32
	// Stabilized is the recommendation after stabilization, before the rate
	// limits and the bounds.
	Stabilized int32
	// Conditions are AbleToScale and ScalingLimited, in that order.
	Conditions []condition.Condition
	// Recommendation records the recommendation (as given, before
	// stabilization) for later calls, once committed (Store.Commit).
	Recommendation Record
}

// Normalize turns in.Recommendation into the replica count to apply: it
// stabilizes it against the HPA's recent recommendations, limits the rate of
// change, and clamps it to the HPA's bounds. It writes nothing: the
// recommendation to record is in the Result, for the caller to commit once
// its decision stands.
//
// The caller still owns two rules of upstream's reconcile: it does not call
// Normalize when the current replicas are outside [MinReplicas, MaxReplicas]
// (other than zero), and when scaling up from zero it raises the result to
// MinReplicas itself.
func (s *Store) Normalize(in Input) Result {
	st := s.state(in.Key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if in.Behavior == nil {
		return s.normalizeLegacy(st, in)
	}
	return s.normalizeWithBehavior(st, in)
}

// result assembles a Result and its conditions.
func result(in Input, stabilized int32, stabilizedWhy verdict, replicas int32, limitWhy verdict, recorded Record) Result {
	return Result{
		Replicas:       replicas,
		Stabilized:     stabilized,
		Recommendation: recorded,
		Conditions: []condition.Condition{
			stabilizationCondition(in.Recommendation, stabilized, stabilizedWhy),
			limitCondition(stabilized, replicas, limitWhy),
		},
	}
}
