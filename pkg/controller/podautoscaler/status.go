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
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
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
	// rescaled: the scale was updated, at scaledAt; status records the time.
	rescaled bool
	scaledAt time.Time
	// answeredAt is when the metrics answered: the conditions decided from
	// them move their transition time to it (edits made before the fetches
	// carry the pass's start). Zero when the pass asked no metric.
	answeredAt time.Time
	// rateLimited: a rate limit (a behavior policy or the legacy rule)
	// held back part of the recommendation.
	rateLimited bool
	action      monitor.ActionLabel
	// wakeAt, when set, is a deadline (a fallback coming due) at which the
	// HPA must be reconciled again.
	wakeAt time.Time
	err    error
	// staleTarget: the scale update conflicted, so the target changed
	// since the read this outcome was decided from (decide).
	staleTarget bool
	// stopped: err ended the pass early; a failed status write is added to
	// it rather than reported instead of it.
	stopped bool
	// decision is the pass's decision trace (decision.go); nil keeps the
	// stored one.
	decision *v2.HorizontalPodAutoscalerScaleDecision
	// history is what the decision writes to the HPA's behavior history
	// (its first recommendation, the recommendation it stabilized, its
	// scale event), with the times they carry; record commits it.
	history behavior.Effects
}

// conditionEdit sets cond, or with remove drops the condition of its type,
// or with exact puts back that condition as it was, transition time
// included.
type conditionEdit struct {
	cond   condition.Condition
	remove bool
	exact  *autoscalingv2.HorizontalPodAutoscalerCondition
	// at, when set, is the time the edit was decided at (stampedAt).
	at time.Time
}

func set(c condition.Condition) conditionEdit { return conditionEdit{cond: c} }

func remove(t autoscalingv2.HorizontalPodAutoscalerConditionType) conditionEdit {
	return conditionEdit{cond: condition.Condition{Type: t}, remove: true}
}

// restore puts back c, a condition of type t as a stored status had it, or
// removes the condition of type t when c is nil.
func restore(t autoscalingv2.HorizontalPodAutoscalerConditionType, c *autoscalingv2.HorizontalPodAutoscalerCondition) conditionEdit {
	if c == nil {
		return remove(t)
	}
	return conditionEdit{cond: condition.Condition{Type: t}, exact: c.DeepCopy()}
}

// writeStatus records out in the HPA's status and writes it when it
// changed; this is the only place a pass changes status. The fallback
// events follow from the status stored (fallback.Transitions).
func (p *pass) writeStatus(out outcome) error {
	before := p.hpa.Status.DeepCopy()
	p.recordOutcome(&p.hpa.Status, out)
	if equality.Semantic.DeepEqual(before, &p.hpa.Status) {
		return nil
	}
	written, err := p.updateStatus(out, before)
	if err != nil {
		if isFenced(err) {
			return err
		}
		p.event(corev1.EventTypeWarning, "FailedUpdateStatus", "%s", err.Error())
		return fmt.Errorf("failed to update status for %s: %w", p.hpa.Name, err)
	}
	p.logger.V(2).Info("Successfully updated status")
	if written.version != "" {
		p.c.consistency.wrote(p.key, p.hpa.UID, written.version)
	}
	// A pass may write twice (an intent to scale to zero, then its
	// outcome): the second write starts from what the first one stored.
	p.hpa.Status = *written.after.DeepCopy()
	if written.stored != "" {
		p.hpa.ResourceVersion = written.stored
	}
	p.emitFallbackTransitions(written.before, written.after)
	return nil
}

// statusAttempts bounds the writes of one pass's status when others keep
// writing the HPA in between.
const statusAttempts = 5

// writtenStatus is what updateStatus stored: the status it replaced, the
// one it wrote, the resourceVersion of the write (none when another writer
// had written the same) and the one the HPA has now.
type writtenStatus struct {
	before, after   *v2.HorizontalPodAutoscalerStatus
	version, stored string
}

// updateStatus writes p.hpa's status. Another writer (kubectl, another
// controller, a second replica during a lease handover) may have written
// the HPA since the pass read it; the status update then conflicts, and
// losing it would lose what the pass did: a ScaledToZero that is lost
// makes the next pass read the HPA's own zero as a person's pause. So on a
// conflict the HPA is read again from the API and this pass's edits are
// recorded over that newer status, a bounded number of times.
func (p *pass) updateStatus(out outcome, before *v2.HorizontalPodAutoscalerStatus) (writtenStatus, error) {
	hpa := p.hpa
	for attempt := 1; ; attempt++ {
		if err := p.allowWrite(); err != nil {
			return writtenStatus{}, err
		}
		version, err := p.source.UpdateStatus(p.ctx, hpa)
		if err == nil {
			return writtenStatus{before: before, after: &hpa.Status, version: version, stored: version}, nil
		}
		if !apierrors.IsConflict(err) || attempt == statusAttempts {
			return writtenStatus{}, err
		}
		latest, gerr := p.source.Latest(p.ctx, hpa.Namespace, hpa.Name)
		if gerr != nil {
			return writtenStatus{}, fmt.Errorf("%w; reading it again: %w", err, gerr)
		}
		if latest.UID != p.hpa.UID {
			// Deleted and created again: that HPA is not the one this pass
			// decided for.
			return writtenStatus{}, err
		}
		p.logger.V(2).Info("Status update conflicted; recording the pass over the latest status", "attempt", attempt)
		before = latest.Status.DeepCopy()
		p.recordOutcome(&latest.Status, out)
		if equality.Semantic.DeepEqual(before, &latest.Status) {
			// The other writer wrote what this pass would have.
			return writtenStatus{before: before, after: before, stored: latest.ResourceVersion}, nil
		}
		hpa = latest
	}
}

// recordOutcome records out in st: the pass's status edits, applied the
// same way over whichever stored status they land on.
func (p *pass) recordOutcome(st *v2.HorizontalPodAutoscalerStatus, out outcome) {
	for _, e := range out.conds {
		switch {
		case e.remove:
			removeCondition(st, e.cond.Type)
		case e.exact != nil:
			putCondition(st, *e.exact)
		default:
			setCondition(st, e.cond, p.editTime(e, out))
		}
	}
	if out.observed || out.applied {
		st.CurrentReplicas = out.current
		st.CurrentMetrics = out.metrics
		if p.c.opts.Gates.Enabled(features.HPAGeneration) {
			// The generation the pass read, 0 included (an API server
			// that does not count generations), as upstream writes it.
			st.ObservedGeneration = ptr.To(p.hpa.Generation)
		}
	}
	if out.applied {
		st.DesiredReplicas = out.desired
	}
	if out.rescaled {
		lastScale := metav1.NewTime(out.scaledAt)
		st.LastScaleTime = &lastScale
	}
	p.recordDecision(st, out.decision)
}

// editTime is the transition time an edit of out sets: the time it was
// decided at, as upstream stamps a condition when it sets it during its
// pass (before its fetches, or after them).
func (p *pass) editTime(e conditionEdit, out outcome) metav1.Time {
	switch {
	case !e.at.IsZero():
		return metav1.NewTime(e.at)
	case !out.answeredAt.IsZero():
		return metav1.NewTime(out.answeredAt)
	}
	return p.now
}

// stampedAt marks edits as decided at t.
func stampedAt(edits []conditionEdit, t time.Time) []conditionEdit {
	for i := range edits {
		edits[i].at = t
	}
	return edits
}

func newCondition(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, format string, args ...any) condition.Condition {
	return condition.Condition{Type: t, Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// setCondition adds or replaces the condition of cond's type. The
// transition time moves only when the status flips, so that a condition
// that keeps its status keeps the time it started.
func setCondition(st *v2.HorizontalPodAutoscalerStatus, cond condition.Condition, now metav1.Time) {
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

// putCondition stores c as it is, in place of the condition of its type.
func putCondition(st *v2.HorizontalPodAutoscalerStatus, c autoscalingv2.HorizontalPodAutoscalerCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// findCondition returns a copy of the condition of type t, or nil.
func findCondition(st *v2.HorizontalPodAutoscalerStatus, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return st.Conditions[i].DeepCopy()
		}
	}
	return nil
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
