package podautoscaler

import (
	"errors"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

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
		p.setCondition(invalid.first.failure())
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

// proposeAll evaluates every metric, applies the fallbacks, reports each
// computation to Prometheus and each failure as an event, in spec order.
func (p *pass) proposeAll(selector labels.Selector) []proposal {
	ev := &evaluator{
		ctx:            p.ctx,
		calc:           p.c.calculator,
		namespace:      p.hpa.Namespace,
		tolerances:     tolerances(p.c.opts.Tolerance, p.hpa.Spec.Behavior, p.c.opts.Gates.Enabled(features.HPAConfigurableTolerance)),
		specReplicas:   p.scale.Spec.Replicas,
		statusReplicas: p.scale.Status.Replicas,
		selector:       selector,
	}
	metrics := p.hpa.Spec.Metrics
	out := make([]proposal, len(metrics))
	for i := range metrics {
		start := p.c.opts.Clock.Now()
		pr := ev.evaluate(&metrics[i])
		if src := metrics[i].External; src != nil && p.fallbackEnabled(src) {
			pr = p.applyFallback(src, pr)
		}
		p.observeMetric(pr, metrics[i].Type, p.c.opts.Clock.Since(start))
		out[i] = pr
	}
	for _, pr := range out {
		if pr.cause != nil {
			p.event(corev1.EventTypeWarning, pr.reason, "%s", pr.cause.Error())
		}
	}
	return out
}

// observeMetric reports one metric's computation to Prometheus.
func (p *pass) observeMetric(pr proposal, sourceType autoscalingv2.MetricSourceType, took time.Duration) {
	action, errorLabel := monitor.ActionLabelNone, monitor.ErrorLabelNone
	switch {
	case errors.Is(pr.err, errSpec):
		errorLabel = monitor.ErrorLabelSpec
	case pr.err != nil:
		errorLabel = monitor.ErrorLabelInternal
	case pr.replicas > p.hpa.Status.CurrentReplicas:
		action = monitor.ActionLabelScaleUp
	case pr.replicas < p.hpa.Status.CurrentReplicas:
		action = monitor.ActionLabelScaleDown
	}
	p.c.opts.Monitor.ObserveMetricComputationResult(action, errorLabel, took, sourceType)
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
