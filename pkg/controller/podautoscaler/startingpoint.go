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

package podautoscaler

import (
	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// plan is the replica count a pass means to apply, and why: the rescale
// reason of the event.
type plan struct {
	desired int32
	reason  string
}

// startingPoint is where a pass starts from: either a plan that needs no
// metric (with the fallback history such a pass keeps), or a request for
// metrics.
type startingPoint struct {
	plan
	needsMetrics bool
	conds        []conditionEdit
	metrics      []v2.MetricStatus
	// trace explains a plan that needs no metric.
	trace trace
}

// startFrom handles the cases that need no metrics: a target outside
// [minReplicas, maxReplicas] is brought back into range, and a target at
// zero replicas is paused unless this controller put it there.
func (p *pass) startFrom(tgt target) startingPoint {
	s := startingPoint{conds: p.forgetOwnZero(tgt.current)}
	switch {
	case tgt.current == 0:
		return p.atZero(s)
	case tgt.current > p.hpa.Spec.MaxReplicas:
		s.plan = plan{desired: p.hpa.Spec.MaxReplicas, reason: "Current number of replicas above Spec.MaxReplicas"}
		s.trace = trace{constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintMaxReplicas}}
	case tgt.current < *p.hpa.Spec.MinReplicas:
		s.plan = plan{desired: *p.hpa.Spec.MinReplicas, reason: reasonBelowMin}
		s.trace = trace{constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintMinReplicas}}
	default:
		s.needsMetrics = true
		return s
	}
	return p.keepHistory(s, tgt.current)
}

// keepHistory adds to s the fallback history that a pass asking no metric
// carries over, with the target at current replicas.
func (p *pass) keepHistory(s startingPoint, current int32) startingPoint {
	kept, cond := p.keepFallbackHistory(current)
	s.metrics = kept
	s.conds = append(s.conds, cond)
	return s
}
