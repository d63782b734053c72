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

// raiseFromZeroToMin: a workload this controller scaled to zero comes back
// to at least minReplicas once minReplicas is raised above zero, whatever
// the metrics say. When no metric asked for replicas, minReplicas is the
// reason for the rescale, whether the raise happens here or already in
// normalization (the legacy path clamps to minReplicas itself).
func (p *pass) raiseFromZeroToMin() {
	if p.current != 0 || p.minReplicas == 0 || !p.scaledToZeroByUs() {
		return
	}
	p.desired = max(p.desired, p.minReplicas)
	if p.rescaleReason == "" {
		p.rescaleReason = "Current number of replicas below Spec.MinReplicas"
	}
}
