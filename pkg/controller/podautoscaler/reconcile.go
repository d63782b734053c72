package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// errSpec marks errors caused by the HPA's spec rather than by the cluster,
// so that the reconciliation metrics label them "spec". Like upstream's, it
// adds no text: an error says what is wrong with the spec itself.
var errSpec = errors.New("")

// pass is the state of one reconcile of one HPA. Its methods are the steps
// of the reconcile; each reads what the earlier steps recorded here.
type pass struct {
	c      *Controller
	source HPASource
	ctx    context.Context
	logger klog.Logger
	key    hpaKey
	start  time.Time
	now    metav1.Time

	// hpa is a private, defaulted copy of the cached HPA; status changes
	// accumulate in it. original is the status as read, so that a pass
	// that changes nothing writes nothing.
	hpa      *v2.HorizontalPodAutoscaler
	original *v2.HorizontalPodAutoscalerStatus

	reference   string
	scale       *autoscalingv1.Scale
	targetGR    schema.GroupResource
	current     int32
	minReplicas int32

	desired        int32
	rescaleReason  string
	metricStatuses []v2.MetricStatus
	action         monitor.ActionLabel

	// wakeAt, when set, is a deadline before the next period at which this
	// HPA must be reconciled again (a fallback becoming due).
	wakeAt time.Time
}

func (c *Controller) newPass(ctx context.Context, source HPASource, shared *v2.HorizontalPodAutoscaler, key hpaKey) *pass {
	hpa := shared.DeepCopy()
	v2.SetDefaults(hpa)
	now := c.opts.Clock.Now()
	return &pass{
		c:           c,
		source:      source,
		ctx:         ctx,
		logger:      klog.LoggerWithValues(klog.FromContext(ctx), "hpa", klog.KObj(hpa)),
		key:         key,
		start:       now,
		now:         metav1.NewTime(now),
		hpa:         hpa,
		original:    shared.Status.DeepCopy(),
		reference:   fmt.Sprintf("%s/%s/%s", hpa.Spec.ScaleTargetRef.Kind, hpa.Namespace, hpa.Spec.ScaleTargetRef.Name),
		minReplicas: *hpa.Spec.MinReplicas,
		action:      monitor.ActionLabelNone,
	}
}

// reconcile runs one pass over one HPA: check the spec, read the target's
// scale, decide where to start, ask the metrics, apply the result, report.
func (c *Controller) reconcile(ctx context.Context, source HPASource, shared *v2.HorizontalPodAutoscaler, key hpaKey) (err error) {
	p := c.newPass(ctx, source, shared, key)
	defer func() { p.observe(err) }()
	// Deadlines found on the way (a fallback coming due) must be honored
	// however the pass ends: a pass whose every metric failed ends early.
	defer p.scheduleWake()

	if err := p.checkSpec(); err != nil {
		return err
	}
	if err := p.readScale(); err != nil {
		return err
	}
	needsMetrics := p.chooseStartingPoint()
	var metricsErr error
	if needsMetrics {
		var fatal bool
		if fatal, metricsErr = p.computeFromMetrics(); fatal {
			return metricsErr
		}
		p.normalize()
	}
	if err := p.applyScale(); err != nil {
		return err
	}
	p.finishStatus()
	if err := p.writeStatus(); err != nil {
		return err
	}
	return metricsErr
}

// observe reports the pass to Prometheus.
func (p *pass) observe(err error) {
	errorLabel := monitor.ErrorLabelNone
	switch {
	case errors.Is(err, errSpec):
		errorLabel = monitor.ErrorLabelSpec
	case err != nil:
		errorLabel = monitor.ErrorLabelInternal
	}
	p.c.opts.Monitor.ObserveReconciliationResult(p.action, errorLabel, p.c.opts.Clock.Since(p.start))
}

// event records an event about the HPA.
func (p *pass) event(eventType, reason, format string, args ...any) {
	p.c.opts.EventRecorder.Eventf(p.source.EventObject(p.hpa), eventType, reason, format, args...)
}

func (p *pass) setCondition(cond condition) {
	setCondition(p.hpa, cond, p.now)
}

// failWith records a failure that stops the pass: the condition explains it
// in status, which is written before the error is returned.
func (p *pass) failWith(cond condition, err error) error {
	p.setCondition(cond)
	if werr := p.writeStatus(); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// scheduleWake asks the queue for an early reconcile when a deadline falls
// before the next sync period.
func (p *pass) scheduleWake() {
	if !p.wakeAt.IsZero() && p.wakeAt.Sub(p.now.Time) < p.c.opts.SyncPeriod {
		p.c.requeueAt(p.key, p.wakeAt)
	}
}

// setCurrentAndMetrics records what was observed in a pass that does not
// rescale: current replicas and metric values, keeping the last desired
// count.
func (p *pass) setCurrentAndMetrics() {
	p.hpa.Status.CurrentReplicas = p.current
	p.hpa.Status.CurrentMetrics = p.metricStatuses
}

// finishStatus records the outcome of a pass that got as far as applying
// the scale.
func (p *pass) finishStatus() {
	p.hpa.Status.CurrentReplicas = p.current
	p.hpa.Status.DesiredReplicas = p.desired
	p.hpa.Status.CurrentMetrics = p.metricStatuses
	p.c.opts.Monitor.ObserveDesiredReplicas(monitor.HPARef{APIVersion: p.source.Name(), Namespace: p.hpa.Namespace, Name: p.hpa.Name}, p.desired)
}
