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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/fallback"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// errSpec marks errors caused by the HPA's spec rather than by the cluster,
// so that the reconciliation metrics label them "spec". Like upstream's, it
// adds no text: an error says what is wrong with the spec itself.
var errSpec = errors.New("")

// pass is the context of one reconcile of one HPA. newPass sets its fields
// and no step changes them: each step takes it with its own inputs and
// returns its result, and what the pass decided reaches the world in
// record, once. Two things it points to do change: reports gathers what
// the pass will report (each decision gathers its own, decide), and hpa's
// status follows the status writes (writeStatus).
type pass struct {
	c      *Controller
	source HPASource
	ctx    context.Context
	logger klog.Logger
	key    hpaKey
	now    metav1.Time
	// hpa is a private, defaulted copy of the cached HPA. Its status is the
	// stored one until writeStatus records the outcome in it, last.
	hpa       *v2.HorizontalPodAutoscaler
	reference string
	// period is the HPA's sync period (syncPeriodOf).
	period time.Duration
	// reports are made when the pass is over (passreports.go).
	reports *reports
	// zeroAtStart is the ScaledToZero condition stored when the pass began
	// (nil when there was none). Whether a zero is the controller's own is
	// read from it, never from the intent the pass itself may write before
	// a scale to zero (zero_intent.go).
	zeroAtStart *autoscalingv2.HorizontalPodAutoscalerCondition
}

func (c *Controller) newPass(ctx context.Context, source HPASource, shared *v2.HorizontalPodAutoscaler, key hpaKey) *pass {
	hpa := shared.DeepCopy()
	v2.SetDefaults(hpa)
	if !c.opts.Gates.Enabled(features.HPAMetricSource) {
		ignoreSources(hpa)
	}
	period := c.syncPeriodOf(hpa)
	switch {
	case c.opts.SpreadReconciles:
		// The HPAs that share a metric share its slot (slotKey): half a
		// period takes in the whole group's pass and never its answer of
		// the period before, and nothing fetched before this HPA's last
		// pass ended is new to it.
		ctx = metrics.WithMaxAge(ctx, c.passes.maxAge(key, c.opts.Clock.Now(), period/2))
	case period < c.opts.SyncPeriod:
		// An HPA reconciled more often than the global period wants
		// external metrics that fresh, not as old as the sharing window
		// (which is at most the global period) allows.
		ctx = metrics.WithMaxAge(ctx, period)
	}
	return &pass{
		c:           c,
		source:      source,
		ctx:         ctx,
		logger:      klog.LoggerWithValues(klog.FromContext(ctx), "hpa", klog.KObj(hpa)),
		key:         key,
		now:         metav1.NewTime(c.opts.Clock.Now()),
		hpa:         hpa,
		reference:   fmt.Sprintf("%s/%s/%s", hpa.Spec.ScaleTargetRef.Kind, hpa.Namespace, hpa.Spec.ScaleTargetRef.Name),
		period:      period,
		reports:     &reports{},
		zeroAtStart: findCondition(&hpa.Status, v2.ScaledToZero),
	}
}

// ref names the HPA in the per-HPA series.
func (p *pass) ref() monitor.HPARef {
	return monitor.HPARef{APIVersion: p.source.Name(), Namespace: p.hpa.Namespace, Name: p.hpa.Name}
}

// reconcile runs one pass over one HPA: check the spec, decide and apply
// the scale, then record the outcome in status, once. It returns when
// the pass started, whether the pass paces the next one (paced) and the
// deadline it asks to be woken at.
func (c *Controller) reconcile(ctx context.Context, source HPASource, shared *v2.HorizontalPodAutoscaler, key hpaKey) (passTiming, error) {
	p := c.newPass(ctx, source, shared, key)
	out, valid := p.checkSpec()
	if valid {
		out, valid = p.checkOwnership()
	}
	if valid {
		out = p.decide()
	}
	err := p.record(out)
	p.observe(out.action, err)
	return passTiming{start: p.now.Time, paced: paced(out), wakeAt: out.wakeAt}, err
}

// maxDecisions bounds how many times one pass decides: a target that
// changes under every decision (a person or another controller writing it
// in a loop) ends the pass with the failed update, as upstream's does.
const maxDecisions = 3

// decide decides and applies the scale until a decision is written on the
// state of the target it was made from: the scale update carries the
// resourceVersion of the read it used, so a target changed since (a
// person's scale, a rollout, a watch running behind) conflicts, and the
// pass decides again from a fresh read; the abandoned decision leaves
// nothing (its history and reports are its own). The decisions share one
// fetch budget and its answers, so a hung provider costs one budget.
func (p *pass) decide() outcome {
	fetches, cancel := context.WithTimeout(metrics.WithAnswers(p.ctx), fetchBudget(p.period))
	defer cancel()
	for attempt := 1; ; attempt++ {
		a := p.attempt()
		out := a.decideOnce(fetches)
		if !out.staleTarget || attempt == maxDecisions {
			p.reports.keep(a.reports)
			return p.settleZeroIntent(out)
		}
		p.logger.V(2).Info("The target changed since it was read; deciding again from a fresh read", "scaleTarget", p.reference, "attempt", attempt)
	}
}

// attempt is the pass as one decision sees it: the same context, with
// reports of its own, which decide keeps only if the decision stands.
func (p *pass) attempt() *pass {
	a := *p
	a.reports = &reports{}
	return &a
}

// decideOnce reads the target, chooses where to start, asks the metrics
// (under fetches) when needed, normalizes and applies the scale. An early
// exit is an outcome like any other: the status it records is written by
// record.
func (p *pass) decideOnce(fetches context.Context) outcome {
	tgt, unreadable := p.readTarget()
	if unreadable != nil {
		return *unreadable
	}
	start := p.startFrom(tgt)
	// Room for every condition a pass may set, so that the steps' changes
	// are gathered without regrowing.
	conds := make([]conditionEdit, 0, 8)
	conds = append(append(conds, set(succeededGetScale())), start.conds...)
	if !start.needsMetrics {
		out := p.apply(tgt, start.plan, conds, start.metrics, nil)
		out.decision = p.decision(tgt.current, start.desired, start.trace)
		return out
	}
	conds = stampedAt(conds, p.now.Time)
	rec := p.recommend(fetches, tgt)
	answered := p.stamp(p.c.opts.Clock.Now())
	conds = append(conds, rec.conds...)
	if rec.stop {
		// No count was decided: the target keeps its replicas, and the
		// history takes only the first recommendation, if this is the
		// HPA's first pass.
		return outcome{conds: conds, observed: true, current: tgt.current, metrics: rec.statuses, answeredAt: answered,
			wakeAt: rec.wakeAt, err: rec.err, stopped: true, decision: p.decision(tgt.current, tgt.current, rec.trace),
			history: behavior.Effects{Initial: tgt.initial}}
	}
	norm := p.normalize(tgt, rec.plan, answered)
	out := p.apply(tgt, norm.plan, append(conds, norm.conds...), rec.statuses, rec.err)
	out.history.Recommendation = norm.recorded
	out.answeredAt = answered
	out.wakeAt = rec.wakeAt
	out.rateLimited = rateLimited(norm.conds)
	out.decision = p.decision(tgt.current, norm.plan.desired, rec.trace.with(norm.constraints...))
	return out
}

// stamp is the time a pass records for what it decided at t: in its
// behavior history (recommendations, scale events) and in status
// (transition times, lastScaleTime). The history's windows and periods are
// compared with the time of the HPA's next pass, so both are read from the
// same point of a pass: unspread, the next pass counts its period from the
// end of this one, as upstream's does, and the pass stamps what it decided
// when it decided it, as upstream does (its recommendations once the
// metrics answered, a scale event once written); spread, the next pass
// comes at the slot a period after this one's start, so the pass stamps
// its start, or a slow pass would leave its records too recent for the
// next slot and miss a policy's step (TestSlowPassKeepsItsRamp).
func (p *pass) stamp(t time.Time) time.Time {
	if p.c.opts.SpreadReconciles {
		return p.now.Time
	}
	return t
}

// record commits the outcome: its writes to the behavior history, then
// status; it makes the pass's reports and returns the error of the pass.
func (p *pass) record(out outcome) error {
	defer p.flushReports()
	p.c.behavior.Commit(p.key.String(), out.history)
	if out.applied {
		p.c.opts.Monitor.ObserveDesiredReplicas(p.ref(), out.desired)
	}
	if out.observed {
		p.c.opts.Monitor.ObserveReplicas(p.ref(), monitor.Replicas{Current: out.current, Min: *p.hpa.Spec.MinReplicas, Max: p.hpa.Spec.MaxReplicas})
	}
	if out.observed || out.applied {
		p.c.opts.Monitor.ObserveFallbacks(p.ref(), fallback.HasFallback(p.hpa.Spec.Metrics), fallback.Count(out.metrics))
	}
	werr := p.writeStatus(out)
	err := out.err
	switch {
	case out.stopped:
		err = errors.Join(out.err, werr)
	case werr != nil:
		err = werr
	}
	return err
}

// observe reports the pass to Prometheus, with the HPA's sync period when
// periods are configurable.
func (p *pass) observe(action monitor.ActionLabel, err error) {
	if p.c.configurablePeriod() {
		p.c.opts.Monitor.ObserveSyncPeriod(p.ref(), p.period)
	}
	if action == "" {
		action = monitor.ActionLabelNone
	}
	errorLabel := monitor.ErrorLabelNone
	switch {
	case errors.Is(err, errSpec):
		errorLabel = monitor.ErrorLabelSpec
	case err != nil:
		errorLabel = monitor.ErrorLabelInternal
	}
	p.c.opts.Monitor.ObserveReconciliationResult(action, errorLabel, p.c.opts.Clock.Since(p.now.Time))
}

// event records an event about the HPA when the pass is over.
func (p *pass) event(eventType, reason, format string, args ...any) {
	p.reports.event(eventType, reason, format, args...)
}
