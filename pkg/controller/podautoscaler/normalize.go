package podautoscaler

import (
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
)

// normalize turns the metrics' recommendation into the count to apply:
// stabilization, rate limits (behavior or the legacy rules) and the
// min/max clamp, with their AbleToScale and ScalingLimited conditions.
func (p *pass) normalize() {
	result := p.c.behavior.Normalize(behavior.Input{
		Key:             p.key.String(),
		Behavior:        p.hpa.Spec.Behavior,
		CurrentReplicas: p.current,
		Recommendation:  p.desired,
		MinReplicas:     p.minReplicas,
		MaxReplicas:     p.hpa.Spec.MaxReplicas,
	})
	for _, c := range result.Conditions {
		p.setCondition(condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
	}
	p.desired = result.Replicas
	p.raiseFromZeroToMin()
}

// reasonBelowMin is upstream's rescale reason for a target brought up to
// minReplicas.
const reasonBelowMin = "Current number of replicas below Spec.MinReplicas"

// raiseFromZeroToMin: a workload this controller scaled to zero comes back
// to at least minReplicas once minReplicas is raised above zero, whatever
// the metrics say. As upstream, minReplicas becomes the rescale reason only
// when the raise happens here and no metric gave one; when normalization
// already clamped to minReplicas (the legacy rules do), the reason stays
// empty.
func (p *pass) raiseFromZeroToMin() {
	if !p.raisesFromZeroToMin() || p.desired >= p.minReplicas {
		return
	}
	p.desired = p.minReplicas
	if p.rescaleReason == "" {
		p.rescaleReason = reasonBelowMin
	}
}

// raisesFromZeroToMin reports whether this pass must bring the target up to
// minReplicas from a zero this controller chose.
func (p *pass) raisesFromZeroToMin() bool {
	return p.current == 0 && p.minReplicas != 0 && p.scaledToZeroByUs()
}
