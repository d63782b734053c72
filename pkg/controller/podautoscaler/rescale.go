package podautoscaler

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// applyScale writes the desired replica count to the target when it
// differs from the current one, and records the outcome.
func (p *pass) applyScale() error {
	if p.desired == p.current {
		p.logger.V(4).Info("Decided not to scale", "scaleTarget", p.reference, "desiredReplicas", p.desired,
			"lastScaleTime", p.hpa.Status.LastScaleTime)
		return nil
	}
	if err := p.updateScale(); err != nil {
		p.event(corev1.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", p.desired, p.rescaleReason, err)
		p.setCurrentAndMetrics()
		return p.failWith(newCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale",
			"the HPA controller was unable to update the target scale: %v", err),
			fmt.Errorf("failed to rescale %s: %w", p.reference, err))
	}
	p.setCondition(newCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale",
		"the HPA controller was able to update the target scale to %d", p.desired))
	p.event(corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", p.desired, p.rescaleReason)
	p.c.behavior.RecordScale(p.key.String(), p.hpa.Spec.Behavior, p.current, p.desired)
	p.logger.Info("Successfully rescaled", "currentReplicas", p.current, "desiredReplicas", p.desired, "reason", p.rescaleReason)
	p.recordScaledToZero()
	p.action = monitor.ActionLabelScaleDown
	if p.desired > p.current {
		p.action = monitor.ActionLabelScaleUp
	}
	lastScale := metav1.NewTime(p.now.Time)
	p.hpa.Status.LastScaleTime = &lastScale
	return nil
}

// writeStatus writes the HPA's status when this pass changed it.
func (p *pass) writeStatus() error {
	if equality.Semantic.DeepEqual(p.original, &p.hpa.Status) {
		return nil
	}
	if err := p.source.UpdateStatus(p.ctx, p.hpa); err != nil {
		p.event(corev1.EventTypeWarning, "FailedUpdateStatus", "%s", err.Error())
		return fmt.Errorf("failed to update status for %s: %w", p.hpa.Name, err)
	}
	p.logger.V(2).Info("Successfully updated status")
	p.emitFallbackTransitions()
	return nil
}
