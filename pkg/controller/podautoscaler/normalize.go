package podautoscaler

import (
	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
)

// normalize turns the metrics' recommendation into the count to apply:
// stabilization, rate limits (behavior or the legacy rules) and the
// min/max clamp, with their AbleToScale and ScalingLimited conditions and
// what of them changed the count (for the decision trace).
func (p *pass) normalize(tgt target, rec plan) (plan, []conditionEdit, []v2.HPAScaleDecisionConstraint) {
	result := p.c.behavior.Normalize(behavior.Input{
		Key:             p.key.String(),
		Behavior:        p.hpa.Spec.Behavior.Native(),
		CurrentReplicas: tgt.current,
		Recommendation:  rec.desired,
		MinReplicas:     *p.hpa.Spec.MinReplicas,
		MaxReplicas:     p.hpa.Spec.MaxReplicas,
		Now:             p.now.Time,
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
	return final, conds, constraints
}
