/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// recommendation is what the metrics ask for.
type recommendation struct {
	plan
	// statuses are the metrics' status entries, or the fallback history
	// kept when no metric could be asked.
	statuses []v2.MetricStatus
	conds    []conditionEdit
	// wakeAt is the earliest moment a fallback comes due, if any.
	wakeAt time.Time
	// err reports failed metrics. With stop, no count was decided and the
	// pass ends; without, the others are acted on and err is reported at
	// the end.
	err  error
	stop bool
	// trace is what the metrics proposed, for the decision trace.
	trace trace
}

// recommend asks every metric for a replica count, fetching under ctx, and
// keeps the largest. No count is decided when every metric failed, or some
// failed and the rest would scale down.
func (p *pass) recommend(ctx context.Context, tgt target) recommendation {
	selector, conds, err := p.targetSelector(tgt)
	if err != nil {
		kept, cond := p.keepFallbackHistory(tgt.current)
		return p.metricsFailed(tgt, recommendation{statuses: kept, conds: append(conds, cond)}, err)
	}
	proposals, wakeAt := p.proposeAll(ctx, tgt, selector)
	rec := recommendation{
		statuses: make([]v2.MetricStatus, len(proposals)),
		conds:    append(make([]conditionEdit, 0, 2), p.fallbackCondition(activeFallbacks(proposals))),
		wakeAt:   wakeAt,
	}
	for i := range proposals {
		rec.statuses[i] = proposals[i].status
	}
	best, bestIndex, invalid := combineProposals(proposals)
	if p.traced() {
		guarded := invalid.count > 0 && invalid.count < len(proposals) && best.replicas < tgt.scale.Spec.Replicas
		rec.trace.metrics = metricDecisions(proposals, bestIndex, guarded)
		if bestIndex >= 0 {
			rec.trace.recommended = ptr.To(max(best.replicas, 0))
		}
	}
	if invalid.count > 0 && (invalid.count == len(proposals) || best.replicas < tgt.scale.Spec.Replicas) {
		rec.conds = append(rec.conds, set(invalid.first.failure()))
		return p.metricsFailed(tgt, rec, invalid.err(len(proposals)))
	}
	rec.conds = append(rec.conds, set(newCondition(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
		"the HPA was able to successfully calculate a replica count from %s", best.name)))
	p.logger.V(4).Info("Proposing desired replicas", "desiredReplicas", best.replicas, "metric", best.name,
		"timestamp", best.timestamp, "scaleTarget", p.reference, "fromZero", tgt.current == 0)
	rec.plan = adopt(tgt.current, best)
	if invalid.count > 0 {
		rec.err = invalid.err(len(proposals))
	}
	return rec
}

// adopt makes the winning metric's count the plan, with upstream's rescale
// reasons. A negative count (from negative readings) asks for zero: it
// decided which metric won, but upstream starts its plan from zero.
func adopt(current int32, best proposal) plan {
	pl := plan{desired: max(best.replicas, 0)}
	switch {
	case pl.desired > current:
		pl.reason = fmt.Sprintf("%s above target", best.name)
	case pl.desired < current:
		pl.reason = "All metrics below target"
	}
	return pl
}

// metricsFailed ends a recommendation that decides no count. As upstream,
// the pass stops there: observed values go to status and the error is
// returned. One case goes on: a workload this controller scaled to zero
// whose minReplicas was raised comes back to minReplicas, since that needs
// no metric.
func (p *pass) metricsFailed(tgt target, rec recommendation, cause error) recommendation {
	rec.err = fmt.Errorf("failed to compute desired number of replicas based on listed metrics for %s: %w", p.reference, cause)
	if p.raisesFromZeroToMin(tgt.current) {
		p.event(corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", cause.Error())
		rec.plan = plan{desired: *p.hpa.Spec.MinReplicas, reason: reasonBelowMin}
		rec.trace = rec.trace.with(v2.ScaleDecisionConstraintMinReplicas)
		return rec
	}
	// Upstream records the failure once the observed metrics are stored.
	p.reports.eventAfterStatus(corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", cause.Error())
	rec.stop = true
	// Either some metric gave a count (recommended) that the invalid ones
	// keep from scaling down, or none did.
	rec.trace.reason = v2.ScaleDecisionRecommendationFailed
	if rec.trace.recommended != nil {
		rec.trace.reason = v2.ScaleDecisionInvalidMetrics
		rec.trace = rec.trace.with(v2.ScaleDecisionConstraintInvalidMetricGuard)
	}
	return rec
}

// proposeAll evaluates every metric, fetching under ctx (the pass's fetch
// budget), applies the fallbacks, reports each computation to Prometheus
// and each failure as an event, in spec order. It returns the proposals
// and the earliest fallback deadline.
func (p *pass) proposeAll(ctx context.Context, tgt target, selector labels.Selector) ([]proposal, time.Time) {
	ev := &evaluator{
		ctx:            ctx,
		calc:           p.c.calculator,
		namespace:      p.hpa.Namespace,
		tolerances:     tolerances(p.c.opts.Tolerance, p.hpa.Spec.Behavior, p.c.opts.Gates.Enabled(features.HPAConfigurableTolerance)),
		specReplicas:   tgt.scale.Spec.Replicas,
		statusReplicas: tgt.scale.Status.Replicas,
		selector:       selector,
	}
	var wakeAt time.Time
	metrics := p.hpa.Spec.Metrics
	proposals, took := p.evaluateAll(ev, metrics)
	for i := range metrics {
		if src := metrics[i].External; src != nil && p.fallbackEnabled(src) {
			var due time.Time
			proposals[i], due = p.applyFallback(src, proposals[i], tgt.current)
			// The pass wakes at the first deadline; a zero due is none.
			if !due.IsZero() && (wakeAt.IsZero() || due.Before(wakeAt)) {
				wakeAt = due
			}
		}
		p.observeMetric(proposals[i], metrics[i].Type, took[i])
	}
	for _, pr := range proposals {
		if pr.cause != nil {
			p.event(corev1.EventTypeWarning, pr.reason, "%s", pr.cause.Error())
		}
	}
	return proposals, wakeAt
}

// fetchBudget bounds the metric fetches of one pass, all of them: half the
// HPA's period, so that an HPA on a provider that hangs holds a worker for
// at most that, fails its fetches like any failing provider (and falls
// back where configured), and leaves the rest of the period to the others.
func fetchBudget(period time.Duration) time.Duration {
	return period / 2
}

// evaluateAll evaluates the metrics concurrently (the evaluator has no
// effect but its fetches), so that a pass waits for its slowest fetch, not
// for the sum of them. It returns each metric's proposal and how long its
// computation took.
func (p *pass) evaluateAll(ev *evaluator, metrics []v2.MetricSpec) ([]proposal, []time.Duration) {
	proposals, took := make([]proposal, len(metrics)), make([]time.Duration, len(metrics))
	evaluate := func(i int) {
		start := p.c.opts.Clock.Now()
		proposals[i] = ev.evaluate(&metrics[i])
		took[i] = p.c.opts.Clock.Since(start)
	}
	if len(metrics) == 1 {
		evaluate(0)
		return proposals, took
	}
	g := goroutine.NewGroup(p.ctx, "metric evaluation")
	for i := range metrics {
		g.Start(func() { evaluate(i) })
	}
	if err := g.Wait(); err != nil {
		// A metric's panic is its pass's, as if the metric had been
		// evaluated on the worker's stack: the pass fails and its HPA
		// comes back with the panic backoff (counted once, below).
		panic(err)
	}
	return proposals, took
}

// observeMetric reports one metric's computation to Prometheus, when the
// pass is over.
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
	p.reports.computed(computation{action: action, errorLabel: errorLabel, took: took, sourceType: sourceType})
}
