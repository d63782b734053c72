package podautoscaler

import (
	"errors"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// proposal is what one metric asks for.
type proposal struct {
	replicas  int32
	name      string // how messages and the rescale reason name the metric
	timestamp time.Time
	status    v2.MetricStatus
	// err is set when the metric could not be computed; failure then
	// explains it as a ScalingActive=False condition.
	err     error
	failure condition
	// fallback marks a proposal made by an External metric's fallback.
	fallback bool
}

// failedProposal records a metric that could not be computed. As upstream,
// the event and the condition carry the cause as the calculator (or the
// spec check) reported it, and err, which says which metric failed, is what
// the pass reports; wrap adds that context to cause.
func (p *pass) failedProposal(reason string, cause error, wrap func(error) error) proposal {
	p.event(corev1.EventTypeWarning, reason, "%s", cause.Error())
	err := cause
	if wrap != nil {
		err = wrap(cause)
	}
	return proposal{
		err: err,
		failure: newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, reason,
			"the HPA was unable to compute the replica count: %v", cause),
	}
}

// wrapf returns a wrap for failedProposal that prefixes the cause with the
// formatted text, keeping the cause for errors.Is.
func wrapf(format string, args ...any) func(error) error {
	prefix := fmt.Sprintf(format, args...)
	return func(cause error) error { return fmt.Errorf("%s: %w", prefix, cause) }
}

// computeFromMetrics asks every metric for a replica count and keeps the
// largest. fatal means no count could be decided (every metric failed, or
// some failed and the rest would scale down): status is written and the
// pass stops. A non-fatal error means some metrics failed but the others
// are acted on; the pass goes on and reports the error at the end.
func (p *pass) computeFromMetrics() (fatal bool, err error) {
	selector, err := p.targetSelector()
	if err != nil {
		p.keepFallbackHistory()
		return p.metricsFailed(err)
	}
	proposals := p.proposeAll(selector)
	p.recordFallbackCondition(activeFallbacks(proposals))
	p.metricStatuses = make([]v2.MetricStatus, len(proposals))
	for i := range proposals {
		p.metricStatuses[i] = proposals[i].status
	}
	best, invalid := combineProposals(proposals)
	if invalid.count > 0 && (invalid.count == len(proposals) || best.replicas < p.scale.Spec.Replicas) {
		p.setCondition(invalid.first.failure)
		return p.metricsFailed(invalid.err(len(proposals)))
	}
	p.setCondition(newCondition(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
		"the HPA was able to successfully calculate a replica count from %s", best.name))
	p.logger.V(4).Info("Proposing desired replicas", "desiredReplicas", best.replicas, "metric", best.name,
		"timestamp", best.timestamp, "scaleTarget", p.reference, "fromZero", p.current == 0)
	p.adoptProposal(best)
	if invalid.count > 0 {
		return false, invalid.err(len(proposals))
	}
	return false, nil
}

// adoptProposal makes the winning metric's count the desired one, with
// upstream's rescale reasons.
func (p *pass) adoptProposal(best proposal) {
	rescaleMetric := ""
	if best.replicas > p.desired {
		p.desired, rescaleMetric = best.replicas, best.name
	}
	switch {
	case p.desired > p.current:
		p.rescaleReason = fmt.Sprintf("%s above target", rescaleMetric)
	case p.desired < p.current:
		p.rescaleReason = "All metrics below target"
	}
}

// metricsFailed handles a pass whose metrics decide no count. As upstream,
// the pass stops there: observed values go to status and the error is
// returned. One case goes on: a workload this controller scaled to zero
// whose minReplicas was raised comes back to minReplicas, since that needs
// no metric, and a person raising minReplicas to bring it back must not
// depend on the metrics that may be why they do it.
func (p *pass) metricsFailed(cause error) (fatal bool, err error) {
	p.event(corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", cause.Error())
	err = fmt.Errorf("failed to compute desired number of replicas based on listed metrics for %s: %w", p.reference, cause)
	if p.raisesFromZeroToMin() {
		p.desired, p.rescaleReason = p.minReplicas, reasonBelowMin
		return false, err
	}
	p.setCurrentAndMetrics()
	return true, errors.Join(err, p.writeStatus())
}

func (p *pass) proposeAll(selector labels.Selector) []proposal {
	metrics := p.hpa.Spec.Metrics
	out := make([]proposal, len(metrics))
	for i := range metrics {
		out[i] = p.proposeObserved(&metrics[i], selector)
	}
	return out
}

// invalidMetrics counts the failed metrics and keeps the first failure,
// which is the one reported.
type invalidMetrics struct {
	count int
	first proposal
}

// err reports the invalid metrics. As upstream, it keeps the first error's
// text only: a metric's spec error makes the metric invalid, not the pass a
// spec error, so the reconciliation is labelled "internal".
func (i invalidMetrics) err(total int) error {
	return fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %v", i.count, total, i.first.err)
}

// combineProposals keeps the largest valid proposal. As upstream, a
// running best of zero is replaced by any later proposal, so when every
// valid metric proposes zero the last one is the one named; otherwise ties
// go to the first.
func combineProposals(proposals []proposal) (best proposal, invalid invalidMetrics) {
	for _, pr := range proposals {
		if pr.err != nil {
			if invalid.count == 0 {
				invalid.first = pr
			}
			invalid.count++
			continue
		}
		if best.replicas == 0 || pr.replicas > best.replicas {
			best = pr
		}
	}
	return best, invalid
}

// targetSelector parses the selector of the target's pods and refuses one
// that is missing, malformed, or shared with another HPA, with upstream's
// events and conditions for each.
func (p *pass) targetSelector() (labels.Selector, error) {
	ns, raw := p.hpa.Namespace, p.scale.Status.Selector
	if raw == "" {
		p.event(corev1.EventTypeWarning, "SelectorRequired", "selector is required")
		p.setCondition(newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector",
			"the HPA target's scale is missing a selector"))
		return nil, errors.New("selector is required")
	}
	selector, err := p.c.selectors.parse(p.key, raw)
	if err != nil {
		err = fmt.Errorf("couldn't convert selector into a corresponding internal selector object: %w", err)
		p.event(corev1.EventTypeWarning, "InvalidSelector", "%s", err.Error())
		p.setCondition(newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector", "%s", err.Error()))
		return nil, err
	}
	owners, err := p.c.selectors.owners(p.key, func() ([]*corev1.Pod, error) {
		return p.c.podLister.Pods(ns).List(selector)
	})
	if err != nil {
		return nil, err
	}
	if len(owners) > 1 {
		err := fmt.Errorf("pods by selector %v are controlled by multiple HPAs: %v", raw, namespacedNames(owners))
		p.event(corev1.EventTypeWarning, "AmbiguousSelector", "%s", err.Error())
		p.setCondition(newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "AmbiguousSelector", "%s", err.Error()))
		return nil, err
	}
	return selector, nil
}

// namespacedNames lists HPAs as upstream's messages do, namespace/name: a
// native and an extended HPA of one name read the same there.
func namespacedNames(keys []hpaKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.namespace + "/" + k.name
	}
	return out
}
