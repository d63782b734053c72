package podautoscaler

import (
	"fmt"
	"math"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// Reasons of KEP-5679's condition and events.
const (
	reasonFallbackActive      = "FallbackActive"
	reasonNoFallbackActive    = "NoFallbackActive"
	eventFallbackActivated    = "ExternalMetricFallbackActivated"
	eventFallbackDeactivated  = "ExternalMetricFallbackDeactivated"
	fallbackProposalNameFmt   = "external metric %s fallback"
	defaultFailureDurationSec = v2.DefaultFailureDurationSeconds
)

// fallbackEnabled reports whether fallback applies to src in this pass.
func (p *pass) fallbackEnabled(src *v2.ExternalMetricSource) bool {
	return src.Fallback != nil && p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback)
}

// proposeExternalWithFallback computes an External metric and, when it has
// a fallback, tracks its run of failures of the metrics provider: the first
// failure's time is kept in status (so it survives a restart), an answer
// from the provider ends the run, and once the run has lasted
// failureDurationSeconds the metric proposes its fallback replicas instead
// of failing. The events of these transitions are derived from the status
// once it is written (fallback_events.go).
func (p *pass) proposeExternalWithFallback(src *v2.ExternalMetricSource, selector labels.Selector) proposal {
	pr := p.proposeExternal(src, selector)
	if !p.fallbackEnabled(src) {
		return pr
	}
	previous := p.previousExternalStatus(src.Metric)
	switch {
	case pr.err == nil:
		pr.status.External.FallbackStatus = v2.FallbackStatusNormal
		return pr
	case isProviderFailure(pr.err):
		return p.trackFailure(src, previous, pr)
	}
	// Any other error comes after the provider answered (no pods selected,
	// say): the answer ends a run of provider failures, and the metric stays
	// invalid as upstream, with a condition saying it does not count toward
	// the fallback.
	pr.failure.Message += "; this is not a failure of the metrics provider, so it does not count toward the fallback"
	pr.status = externalFailureStatus(src.Metric, nil)
	if _, err := metav1.LabelSelectorAsSelector(src.Metric.Selector); err != nil && previous != nil {
		// A selector that does not parse fails before the provider is asked
		// (validation does not check it): the run of failures, if any, is
		// neither advanced nor ended.
		pr.status.External = previous.DeepCopy()
	}
	return pr
}

// externalFailureStatus is the status entry of a failing External metric:
// its identifier and fallback state, no value.
func externalFailureStatus(id autoscalingv2.MetricIdentifier, firstFailure *metav1.Time) v2.MetricStatus {
	return v2.MetricStatus{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricStatus{
			Metric:           autoscalingv2.MetricIdentifier{Name: id.Name, Selector: id.Selector},
			FallbackStatus:   v2.FallbackStatusNormal,
			FirstFailureTime: firstFailure,
		},
	}
}

func (p *pass) trackFailure(src *v2.ExternalMetricSource, previous *v2.ExternalMetricStatus, failed proposal) proposal {
	firstFailure := p.now
	// A first failure recorded ahead of this controller's clock (by a
	// replica whose clock ran ahead) counts from now, or it would put the
	// fallback off by the skew, possibly for good.
	if previous != nil && previous.FirstFailureTime != nil && !previous.FirstFailureTime.After(p.now.Time) {
		firstFailure = *previous.FirstFailureTime
	}
	duration := failureDuration(src.Fallback)
	status := externalFailureStatus(src.Metric, &firstFailure)
	due := firstFailure.Add(duration)
	if p.now.Time.Before(due) {
		// Not yet: the metric counts as invalid, as upstream treats a
		// failing metric, and the pass asks to be woken at the deadline.
		p.wakeAt = earliest(p.wakeAt, due)
		failed.status = status
		return failed
	}
	status.External.FallbackStatus = v2.FallbackStatusFallback
	p.logger.V(2).Info("External metric in fallback", "metric", src.Metric.Name, "firstFailureTime", firstFailure.Time,
		"replicas", src.Fallback.Replicas, "cause", failed.err)
	return proposal{
		replicas:  src.Fallback.Replicas,
		name:      fmt.Sprintf(fallbackProposalNameFmt, src.Metric.Name),
		timestamp: p.now.Time,
		status:    status,
		fallback:  true,
	}
}

// failureDuration is failureDurationSeconds as a Duration. Validation
// bounds the field, but an object stored before that check may hold any
// int64: a count of seconds beyond what a Duration holds saturates (the
// fallback is then never due) instead of wrapping around to a negative
// duration that would make it due at the first failure.
func failureDuration(f *v2.ExternalMetricFallback) time.Duration {
	seconds := defaultFailureDurationSec
	if f.FailureDurationSeconds != nil {
		seconds = *f.FailureDurationSeconds
	}
	const maxSeconds = int64(math.MaxInt64 / time.Second)
	switch {
	case seconds > maxSeconds:
		return math.MaxInt64
	case seconds < 0:
		return 0
	}
	return time.Duration(seconds) * time.Second
}

func earliest(current, candidate time.Time) time.Time {
	if current.IsZero() || candidate.Before(current) {
		return candidate
	}
	return current
}

// previousExternalStatus finds the status entry that the last pass wrote
// for the External metric id.
func (p *pass) previousExternalStatus(id autoscalingv2.MetricIdentifier) *v2.ExternalMetricStatus {
	return findExternal(p.original.CurrentMetrics, id)
}

// keepFallbackHistory carries the fallback state of the External metrics
// through a pass that asks no metric: the target outside [minReplicas,
// maxReplicas], paused at zero, or a selector that cannot be used. Only an
// answer from the metrics provider ends a run of failures, so such a pass
// must not restart a failing metric's clock, nor take a metric out of
// fallback. The condition follows the entries kept.
func (p *pass) keepFallbackHistory() {
	if !p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback) {
		removeCondition(p.hpa, v2.ExternalMetricFallbackActive)
		return
	}
	var kept []proposal
	for i := range p.hpa.Spec.Metrics {
		src := p.hpa.Spec.Metrics[i].External
		if src == nil || !p.fallbackEnabled(src) {
			continue
		}
		previous := p.previousExternalStatus(src.Metric)
		if previous == nil || previous.FirstFailureTime == nil {
			continue
		}
		status := v2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: previous.DeepCopy()}
		p.metricStatuses = append(p.metricStatuses, status)
		kept = append(kept, proposal{status: status, fallback: previous.FallbackStatus == v2.FallbackStatusFallback})
	}
	p.recordFallbackCondition(kept)
}

// recordFallbackCondition sets ExternalMetricFallbackActive from this
// pass's proposals. HPAs without a fallback, or with the gate off, carry no
// such condition, so nothing stale is left for a later re-enable.
func (p *pass) recordFallbackCondition(proposals []proposal) {
	if !p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback) || !hasFallback(p.hpa) {
		removeCondition(p.hpa, v2.ExternalMetricFallbackActive)
		return
	}
	var active []string
	for _, pr := range proposals {
		if pr.fallback {
			active = append(active, pr.status.External.Metric.Name)
		}
	}
	if len(active) == 0 {
		p.setCondition(newCondition(v2.ExternalMetricFallbackActive, corev1.ConditionFalse, reasonNoFallbackActive,
			"no external metric is using its fallback"))
		return
	}
	p.setCondition(newCondition(v2.ExternalMetricFallbackActive, corev1.ConditionTrue, reasonFallbackActive,
		"external metrics using their fallback replica count: %s", strings.Join(active, ", ")))
}

func hasFallback(hpa *v2.HorizontalPodAutoscaler) bool {
	for _, m := range hpa.Spec.Metrics {
		if m.External != nil && m.External.Fallback != nil {
			return true
		}
	}
	return false
}
