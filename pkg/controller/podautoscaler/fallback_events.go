package podautoscaler

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// emitFallbackTransitions records one event per External metric whose
// fallback state changed between the status as read and the status just
// written. Deriving the events from the stored status, rather than from the
// step that changed it, gives every path its event (a metric recovering, its
// fallback removed from the spec, the gate turned off) and never a second
// one: a pass whose status write fails emits nothing, and the next pass
// compares against the same stored status, so the transition is reported
// once, when it is stored.
func (p *pass) emitFallbackTransitions() {
	before, after := p.original.CurrentMetrics, p.hpa.Status.CurrentMetrics
	for i := range after {
		ext := after[i].External
		if ext == nil || ext.FallbackStatus != v2.FallbackStatusFallback || inFallback(before, ext.Metric) {
			continue
		}
		src := p.externalSpec(ext.Metric)
		if src == nil || src.Fallback == nil {
			continue
		}
		p.event(corev1.EventTypeNormal, eventFallbackActivated,
			"Fallback activated for external metric '%s' after %v of consecutive failures, using fallback replica count: %d",
			ext.Metric.Name, failureDuration(src.Fallback), src.Fallback.Replicas)
	}
	for i := range before {
		ext := before[i].External
		if ext == nil || ext.FallbackStatus != v2.FallbackStatusFallback || inFallback(after, ext.Metric) {
			continue
		}
		if now := findExternal(after, ext.Metric); now != nil && now.FallbackStatus == v2.FallbackStatusNormal {
			p.event(corev1.EventTypeNormal, eventFallbackDeactivated,
				"External metric '%s' recovered, fallback deactivated", ext.Metric.Name)
			continue
		}
		p.event(corev1.EventTypeNormal, eventFallbackDeactivated,
			"Fallback deactivated for external metric '%s': its fallback is no longer configured or enabled", ext.Metric.Name)
	}
}

// externalSpec returns the spec of the External metric id, if any.
func (p *pass) externalSpec(id autoscalingv2.MetricIdentifier) *v2.ExternalMetricSource {
	for i := range p.hpa.Spec.Metrics {
		src := p.hpa.Spec.Metrics[i].External
		if src != nil && sameMetric(src.Metric, id) {
			return src
		}
	}
	return nil
}

func inFallback(statuses []v2.MetricStatus, id autoscalingv2.MetricIdentifier) bool {
	ext := findExternal(statuses, id)
	return ext != nil && ext.FallbackStatus == v2.FallbackStatusFallback
}

// findExternal finds the status entry of the External metric id. Entries are
// matched by metric name and selector, not by position, so that editing the
// metric list does not hand one metric's failure history to another.
func findExternal(statuses []v2.MetricStatus, id autoscalingv2.MetricIdentifier) *v2.ExternalMetricStatus {
	for i := range statuses {
		if ext := statuses[i].External; ext != nil && sameMetric(ext.Metric, id) {
			return ext
		}
	}
	return nil
}

func sameMetric(a, b autoscalingv2.MetricIdentifier) bool {
	return a.Name == b.Name && equality.Semantic.DeepEqual(a.Selector, b.Selector)
}
