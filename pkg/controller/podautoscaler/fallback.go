package podautoscaler

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/fallback"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// fallbackEnabled reports whether fallback applies to src in this pass.
func (p *pass) fallbackEnabled(src *v2.ExternalMetricSource) bool {
	return src.Fallback != nil && p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback)
}

// applyFallback lets the fallback rules of package fallback decide what an
// External metric's computation means. A metric in fallback keeps the
// reason and cause of its failure, which are still reported.
func (p *pass) applyFallback(src *v2.ExternalMetricSource, pr proposal) proposal {
	previous := fallback.Find(p.original.CurrentMetrics, src.Metric)
	d := fallback.Decide(previous, src, p.now.Time, fallback.Computed{Status: pr.status, Err: pr.err})
	pr.status = d.Status
	switch d.Outcome {
	case fallback.Failing:
		p.wakeAt = earliest(p.wakeAt, d.WakeAt)
	case fallback.NotCounted:
		pr.note = fallback.NotCountedNote
	case fallback.Active:
		p.logger.V(2).Info("External metric in fallback", "metric", src.Metric.Name,
			"firstFailureTime", d.Status.External.FirstFailureTime.Time, "replicas", d.Replicas, "cause", pr.err)
		return proposal{replicas: d.Replicas, name: d.Name, timestamp: p.now.Time, status: d.Status, fallback: true,
			reason: pr.reason, cause: pr.cause}
	}
	return pr
}

// keepFallbackHistory carries the fallback state of the External metrics
// through a pass that asks no metric (fallback.Carry). The condition
// follows the entries kept.
func (p *pass) keepFallbackHistory() {
	if !p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback) {
		removeCondition(p.hpa, v2.ExternalMetricFallbackActive)
		return
	}
	kept, active := fallback.Carry(p.hpa.Spec.Metrics, p.original.CurrentMetrics)
	p.metricStatuses = append(p.metricStatuses, kept...)
	p.recordFallbackCondition(active)
}

// activeFallbacks names the metrics whose proposal is their fallback.
func activeFallbacks(proposals []proposal) []string {
	var active []string
	for _, pr := range proposals {
		if pr.fallback {
			active = append(active, pr.status.External.Metric.Name)
		}
	}
	return active
}

// recordFallbackCondition sets ExternalMetricFallbackActive for the
// metrics named active. HPAs without a fallback, or with the gate off,
// carry no such condition, so nothing stale is left for a later re-enable.
func (p *pass) recordFallbackCondition(active []string) {
	if !p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback) || !hasFallback(p.hpa) {
		removeCondition(p.hpa, v2.ExternalMetricFallbackActive)
		return
	}
	p.setCondition(condition(fallback.Condition(active)))
}

// emitFallbackTransitions records the events of the fallback transitions
// that the status just written stores (fallback.Transitions).
func (p *pass) emitFallbackTransitions() {
	for _, e := range fallback.Transitions(p.hpa.Spec.Metrics, p.original.CurrentMetrics, p.hpa.Status.CurrentMetrics) {
		p.event(corev1.EventTypeNormal, e.Reason, "%s", e.Message)
	}
}

func hasFallback(hpa *v2.HorizontalPodAutoscaler) bool {
	for _, m := range hpa.Spec.Metrics {
		if m.External != nil && m.External.Fallback != nil {
			return true
		}
	}
	return false
}

func earliest(current, candidate time.Time) time.Time {
	if current.IsZero() || candidate.Before(current) {
		return candidate
	}
	return current
}
