package podautoscaler

import (
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// outcome is what one pass decided: everything its status write, its
// requeue and its report need.
type outcome struct {
	// conds are the condition changes in the order decided: a condition
	// first set in this pass goes after the others, as upstream orders them.
	conds []conditionEdit
	// observed: status records the target's current replicas and the
	// metrics' values (or the fallback history an early exit keeps).
	observed bool
	current  int32
	metrics  []v2.MetricStatus
	// applied: the pass got as far as the scale; status records desired.
	applied bool
	desired int32
	// rescaled: the scale was updated; status records the time.
	rescaled bool
	action   monitor.ActionLabel
	// wakeAt, when set, is a deadline (a fallback coming due) at which the
	// HPA must be reconciled again.
	wakeAt time.Time
	err    error
	// stopped: err ended the pass early; a failed status write is added to
	// it rather than reported instead of it.
	stopped bool
	// decision is the pass's decision trace (decision.go); nil keeps the
	// stored one.
	decision *v2.HorizontalPodAutoscalerScaleDecision
}

// conditionEdit sets cond, or with remove drops the condition of its type.
type conditionEdit struct {
	cond   behavior.Condition
	remove bool
}

func set(c behavior.Condition) conditionEdit { return conditionEdit{cond: c} }

func remove(t autoscalingv2.HorizontalPodAutoscalerConditionType) conditionEdit {
	return conditionEdit{cond: behavior.Condition{Type: t}, remove: true}
}

// writeStatus records out in the HPA's status and writes it when it
// changed; this is the only place a pass changes status. The fallback
// events follow from the status stored (fallback.Transitions).
func (p *pass) writeStatus(out outcome) error {
	before := p.hpa.Status.DeepCopy()
	st := &p.hpa.Status
	for _, e := range out.conds {
		if e.remove {
			removeCondition(st, e.cond.Type)
		} else {
			setCondition(st, e.cond, p.now)
		}
	}
	if out.observed || out.applied {
		st.CurrentReplicas = out.current
		st.CurrentMetrics = out.metrics
	}
	if out.applied {
		st.DesiredReplicas = out.desired
	}
	if out.rescaled {
		lastScale := metav1.NewTime(p.now.Time)
		st.LastScaleTime = &lastScale
	}
	p.recordDecision(st, out.decision)
	if equality.Semantic.DeepEqual(before, st) {
		return nil
	}
	if err := p.source.UpdateStatus(p.ctx, p.hpa); err != nil {
		p.event(corev1.EventTypeWarning, "FailedUpdateStatus", "%s", err.Error())
		return fmt.Errorf("failed to update status for %s: %w", p.hpa.Name, err)
	}
	p.logger.V(2).Info("Successfully updated status")
	p.emitFallbackTransitions(before.CurrentMetrics)
	return nil
}

func newCondition(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, format string, args ...any) behavior.Condition {
	return behavior.Condition{Type: t, Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// setCondition adds or replaces the condition of cond's type. The
// transition time moves only when the status flips, so that a condition
// that keeps its status keeps the time it started.
func setCondition(st *v2.HorizontalPodAutoscalerStatus, cond behavior.Condition, now metav1.Time) {
	conds := st.Conditions
	for i := range conds {
		if conds[i].Type != cond.Type {
			continue
		}
		if conds[i].Status != cond.Status {
			conds[i].LastTransitionTime = now
		}
		conds[i].Status, conds[i].Reason, conds[i].Message = cond.Status, cond.Reason, cond.Message
		return
	}
	st.Conditions = append(conds, autoscalingv2.HorizontalPodAutoscalerCondition{
		Type:               cond.Type,
		Status:             cond.Status,
		Reason:             cond.Reason,
		Message:            cond.Message,
		LastTransitionTime: now,
	})
}

func removeCondition(st *v2.HorizontalPodAutoscalerStatus, t autoscalingv2.HorizontalPodAutoscalerConditionType) {
	kept := st.Conditions[:0]
	for _, c := range st.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	st.Conditions = kept
}

func conditionIsTrue(hpa *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) bool {
	for _, c := range hpa.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
