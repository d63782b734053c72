package podautoscaler

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// chooseStartingPoint handles the cases that need no metrics: a target
// outside [minReplicas, maxReplicas] is brought back into range, and a
// target at zero replicas is paused unless this controller put it there.
// It reports whether the metrics must be asked.
func (p *pass) chooseStartingPoint() (needsMetrics bool) {
	p.forgetOwnZero()
	switch {
	case p.current == 0:
		return p.atZero()
	case p.current > p.hpa.Spec.MaxReplicas:
		p.desired, p.rescaleReason = p.hpa.Spec.MaxReplicas, "Current number of replicas above Spec.MaxReplicas"
		p.keepFallbackHistory()
		return false
	case p.current < p.minReplicas:
		p.desired, p.rescaleReason = p.minReplicas, reasonBelowMin
		p.keepFallbackHistory()
		return false
	}
	return true
}

// atZero implements KEP-2021 as upstream v1.36 does: zero replicas means
// "paused by a person" unless the ScaledToZero condition says this
// controller scaled the workload down, in which case the metrics (or a
// raised minReplicas) may bring it back.
func (p *pass) atZero() (needsMetrics bool) {
	if p.mayScaleFromZero() {
		return true
	}
	p.desired = 0
	p.setCondition(newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled",
		"scaling is disabled since the replica count of the target is zero"))
	if !p.c.opts.Gates.Enabled(features.HPAScaleToZero) {
		removeCondition(p.hpa, v2.ScaledToZero)
	}
	// A paused HPA asks no metric and, as upstream, reports no value; the
	// failure history of the External metrics is kept for when it resumes.
	p.keepFallbackHistory()
	return false
}

func (p *pass) scaledToZeroByUs() bool {
	return p.c.opts.Gates.Enabled(features.HPAScaleToZero) && conditionIsTrue(p.hpa, v2.ScaledToZero)
}

func (p *pass) mayScaleFromZero() bool {
	return p.scaledToZeroByUs() && (p.minReplicas != 0 || hasObjectOrExternalMetric(p.hpa))
}

func hasObjectOrExternalMetric(hpa *v2.HorizontalPodAutoscaler) bool {
	for _, m := range hpa.Spec.Metrics {
		if m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType {
			return true
		}
	}
	return false
}

// forgetOwnZero clears ScaledToZero once the target is seen above zero.
// Upstream updates the condition only when it rescales, so a workload that
// a person scaled up from the HPA's zero kept ScaledToZero=True, and a later
// zero set by that person was taken for the HPA's own and undone; a zero
// seen after replicas is a person's pause.
func (p *pass) forgetOwnZero() {
	if p.current > 0 && p.scaledToZeroByUs() {
		p.setCondition(notScaledToZero())
	}
}

func notScaledToZero() condition {
	return newCondition(v2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero",
		"the HPA controller did not scale the workload to zero")
}

// recordScaledToZero keeps the ScaledToZero condition true to the last
// rescale: True only when this controller took the workload from some
// replicas to none, as minReplicas 0 allows.
func (p *pass) recordScaledToZero() {
	if !p.c.opts.Gates.Enabled(features.HPAScaleToZero) {
		removeCondition(p.hpa, v2.ScaledToZero)
		return
	}
	if p.current > 0 && p.desired == 0 && p.minReplicas == 0 && hasObjectOrExternalMetric(p.hpa) {
		p.setCondition(newCondition(v2.ScaledToZero, corev1.ConditionTrue, "ScaledToZero",
			"the HPA controller scaled the workload to zero"))
		return
	}
	p.setCondition(notScaledToZero())
}
