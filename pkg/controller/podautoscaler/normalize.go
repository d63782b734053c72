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
	"time"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
)

// normalized is what normalize decided.
type normalized struct {
	plan  plan
	conds []conditionEdit
	// constraints are what of the rules changed the count, for the
	// decision trace.
	constraints []v2.HPAScaleDecisionConstraint
	// recorded is the recommendation for the behavior history, which the
	// pass commits with its decision (outcome.history).
	recorded behavior.Record
}

// normalize turns the metrics' recommendation into the count to apply:
// stabilization, rate limits (behavior or the legacy rules) and the
// min/max clamp, with their AbleToScale and ScalingLimited conditions and
// what of them changed the count. It reads the behavior history, with the
// target's pending first recommendation, and writes nothing to it. now is
// the stamp (reconcile.go) of the moment the metrics answered.
func (p *pass) normalize(tgt target, rec plan, now time.Time) normalized {
	result := p.c.behavior.Normalize(behavior.Input{
		Key:             p.key.String(),
		Behavior:        p.hpa.Spec.Behavior.Native(),
		CurrentReplicas: tgt.current,
		Recommendation:  rec.desired,
		MinReplicas:     *p.hpa.Spec.MinReplicas,
		MaxReplicas:     p.hpa.Spec.MaxReplicas,
		Now:             now,
		Initial:         tgt.initial,
	})
	conds := make([]conditionEdit, len(result.Conditions))
	for i, c := range result.Conditions {
		conds[i] = set(c)
	}
	final := p.raiseFromZeroToMin(tgt.current, plan{desired: result.Replicas, reason: rec.reason})
	var constraints []v2.HPAScaleDecisionConstraint
	if p.traced() {
		constraints = normalizationConstraints(result.Conditions)
		if final.desired != result.Replicas {
			constraints = append(constraints, v2.ScaleDecisionConstraintMinReplicas)
		}
	}
	return normalized{plan: final, conds: conds, constraints: constraints, recorded: result.Recommendation}
}
