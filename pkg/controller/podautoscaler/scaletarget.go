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

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// target is the HPA's scale target as this pass read it.
type target struct {
	scale   *autoscalingv1.Scale
	gr      schema.GroupResource
	current int32
	// initial is the HPA's first recommendation (the current count, at the
	// pass's start) when its behavior history is empty: normalization reads
	// it, and the pass commits it with its decision, even one that ends
	// before normalization, as upstream records it when it reads the scale.
	initial behavior.Record
}

// readTarget reads the scale subresource of the HPA's target. When it
// cannot, the outcome that ends the pass is returned instead.
func (p *pass) readTarget() (target, *outcome) {
	ref := p.hpa.Spec.ScaleTargetRef
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return target{}, p.failGetScale(err, fmt.Errorf("invalid API version in scale target reference: %v%w", err, errSpec))
	}
	mappings, err := p.c.opts.Mapper.RESTMappings(schema.GroupKind{Group: gv.Group, Kind: ref.Kind})
	if err != nil {
		return target{}, p.failGetScale(err, fmt.Errorf("unable to determine resource for scale target reference: %w", err))
	}
	scale, gr, err := p.scaleForMappings(mappings)
	if err != nil {
		return target{}, p.failGetScale(err, fmt.Errorf("failed to query scale subresource for %s: %w", p.reference, err))
	}
	return target{scale: scale, gr: gr, current: scale.Spec.Replicas,
		initial: p.c.behavior.Initial(p.key.String(), scale.Spec.Replicas, p.now.Time)}, nil
}

// succeededGetScale is the condition of a pass that read the target's scale.
func succeededGetScale() condition.Condition {
	return newCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale",
		"the HPA controller was able to get the target's current scale")
}

func (p *pass) failGetScale(cause, err error) *outcome {
	p.event(corev1.EventTypeWarning, "FailedGetScale", "%s", cause.Error())
	return &outcome{conds: []conditionEdit{set(newCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
		"the HPA controller was unable to get the target's current scale: %v", cause))}, err: err, stopped: true}
}

// scaleForMappings tries each REST mapping of the target's kind until one
// serves a scale subresource. The first error is the one reported, since
// the first mapping is the preferred one.
func (p *pass) scaleForMappings(mappings []*apimeta.RESTMapping) (*autoscalingv1.Scale, schema.GroupResource, error) {
	var firstErr error
	for _, mapping := range mappings {
		gr := mapping.Resource.GroupResource()
		scale, err := p.c.opts.ScaleClient.Scales(p.hpa.Namespace).Get(p.ctx, gr, p.hpa.Spec.ScaleTargetRef.Name, metav1.GetOptions{})
		if err == nil {
			return scale, gr, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("unrecognized resource")
	}
	return nil, schema.GroupResource{}, firstErr
}

// updateScale writes the desired replicas over the scale the decision was
// read from, resourceVersion included: it succeeds only if nobody changed
// the target since that read, and is never retried with the same count
// (decide re-decides instead).
func (p *pass) updateScale(tgt target, desired int32) error {
	if err := p.allowWrite(); err != nil {
		return err
	}
	scale := tgt.scale.DeepCopy()
	scale.Spec.Replicas = desired
	_, err := p.c.opts.ScaleClient.Scales(p.hpa.Namespace).Update(p.ctx, tgt.gr, scale, metav1.UpdateOptions{})
	return err
}

// apply writes the plan's replica count to the target when it differs
// from the current one, and returns the outcome of the pass; conds and
// metrics are what the earlier steps decided, err the metrics' partial
// failure, reported after the scale.
func (p *pass) apply(tgt target, pl plan, conds []conditionEdit, metrics []v2.MetricStatus, err error) outcome {
	out := outcome{conds: conds, current: tgt.current, metrics: metrics, err: err, history: behavior.Effects{Initial: tgt.initial}}
	if pl.desired == tgt.current {
		p.logger.V(4).Info("Decided not to scale", "scaleTarget", p.reference, "desiredReplicas", pl.desired,
			"lastScaleTime", ptr.Deref(p.hpa.Status.LastScaleTime, metav1.Time{}))
		out.applied, out.desired = true, pl.desired
		return out
	}
	if p.takesToZero(tgt.current, pl.desired) {
		if ierr := p.writeZeroIntent(); ierr != nil {
			out.observed, out.stopped, out.err = true, true, ierr
			return out
		}
	}
	if uerr := p.updateScale(tgt, pl.desired); uerr != nil {
		if isFenced(uerr) {
			p.logger.V(2).Info("Not rescaling: the HPA's shard is fenced", "err", uerr)
			out.observed, out.stopped, out.err = true, true, uerr
			return out
		}
		out.staleTarget = apierrors.IsConflict(uerr)
		p.event(corev1.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", pl.desired, pl.reason, uerr)
		out.conds = append(out.conds, set(newCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale",
			"the HPA controller was unable to update the target scale: %v", uerr)))
		out.observed, out.stopped, out.err = true, true, fmt.Errorf("failed to rescale %s: %w", p.reference, uerr)
		return out
	}
	out.conds = append(out.conds, set(newCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale",
		"the HPA controller was able to update the target scale to %d", pl.desired)))
	p.event(corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", pl.desired, pl.reason)
	out.scaledAt = p.stamp(p.c.opts.Clock.Now())
	out.history.Scale = p.c.behavior.Scale(p.hpa.Spec.Behavior.Native(), tgt.current, pl.desired, out.scaledAt)
	p.logger.Info("Successfully rescaled", "currentReplicas", tgt.current, "desiredReplicas", pl.desired, "reason", pl.reason)
	out.conds = append(out.conds, p.recordScaledToZero(tgt.current, pl.desired))
	out.applied, out.desired, out.rescaled = true, pl.desired, true
	out.action = monitor.ActionLabelScaleDown
	if pl.desired > tgt.current {
		out.action = monitor.ActionLabelScaleUp
	}
	return out
}
