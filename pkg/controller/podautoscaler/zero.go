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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// Everything about zero replicas (KEP-2021, as upstream v1.36 does it):
// zero means "paused by a person" unless the ScaledToZero condition says
// this controller scaled the workload down, in which case the metrics (or
// a raised minReplicas) may bring it back.

// reasonBelowMin is upstream's rescale reason for a target brought up to
// minReplicas.
const reasonBelowMin = "Current number of replicas below Spec.MinReplicas"

// atZero decides the start of a pass whose target is at zero replicas.
func (p *pass) atZero(s startingPoint) startingPoint {
	if p.mayScaleFromZero() {
		s.needsMetrics = true
		return s
	}
	s.conds = append(s.conds, set(newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled",
		"scaling is disabled since the replica count of the target is zero")))
	s.trace = trace{reason: v2.ScaleDecisionScalingDisabled}
	if !p.c.opts.Gates.Enabled(features.HPAScaleToZero) {
		s.conds = append(s.conds, remove(v2.ScaledToZero))
	}
	// A paused HPA asks no metric and, as upstream, reports no value; the
	// failure history of the External metrics is kept for when it resumes.
	return p.keepHistory(s, 0)
}

// scaledToZeroByUs reads the status stored when the pass began: the
// intent a pass writes before its own scale to zero must not make a zero
// that a person set in the meantime look like the controller's.
func (p *pass) scaledToZeroByUs() bool {
	return p.c.opts.Gates.Enabled(features.HPAScaleToZero) &&
		p.zeroAtStart != nil && p.zeroAtStart.Status == corev1.ConditionTrue
}

func (p *pass) mayScaleFromZero() bool {
	return p.scaledToZeroByUs() && (*p.hpa.Spec.MinReplicas != 0 || p.hpa.Spec.HasObjectOrExternalMetric())
}

// forgetOwnZero clears ScaledToZero once the target is seen above zero.
// Upstream updates the condition only when it rescales, so a workload that
// a person scaled up from the HPA's zero kept ScaledToZero=True, and a later
// zero set by that person was taken for the HPA's own and undone; a zero
// seen after replicas is a person's pause.
func (p *pass) forgetOwnZero(current int32) []conditionEdit {
	if current > 0 && p.scaledToZeroByUs() {
		return []conditionEdit{set(notScaledToZero())}
	}
	return nil
}

func notScaledToZero() condition.Condition {
	return newCondition(v2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero",
		"the HPA controller did not scale the workload to zero")
}

// recordScaledToZero keeps the ScaledToZero condition true to the last
// rescale: True only when this controller took the workload from some
// replicas to none, as minReplicas 0 allows.
func (p *pass) recordScaledToZero(current, desired int32) conditionEdit {
	if !p.c.opts.Gates.Enabled(features.HPAScaleToZero) {
		return remove(v2.ScaledToZero)
	}
	if p.takesToZero(current, desired) {
		return set(scaledToZeroCondition())
	}
	return set(notScaledToZero())
}

// takesToZero reports whether scaling from current to desired is the
// controller's own scale to zero, the one ScaledToZero records.
func (p *pass) takesToZero(current, desired int32) bool {
	return p.c.opts.Gates.Enabled(features.HPAScaleToZero) && current > 0 && desired == 0 &&
		*p.hpa.Spec.MinReplicas == 0 && p.hpa.Spec.HasObjectOrExternalMetric()
}

func scaledToZeroCondition() condition.Condition {
	return newCondition(v2.ScaledToZero, corev1.ConditionTrue, "ScaledToZero",
		"the HPA controller scaled the workload to zero")
}

// raisesFromZeroToMin reports whether this pass must bring the target up to
// minReplicas from a zero this controller chose: a person raising
// minReplicas to bring it back must not depend on the metrics, which may be
// why they do it.
func (p *pass) raisesFromZeroToMin(current int32) bool {
	return current == 0 && *p.hpa.Spec.MinReplicas != 0 && p.scaledToZeroByUs()
}

// raiseFromZeroToMin: a workload this controller scaled to zero comes back
// to at least minReplicas once minReplicas is raised above zero, whatever
// the metrics say. As upstream, minReplicas becomes the rescale reason only
// when the raise happens here and no metric gave one; when normalization
// already clamped to minReplicas (the legacy rules do), the reason stays
// empty.
func (p *pass) raiseFromZeroToMin(current int32, pl plan) plan {
	if !p.raisesFromZeroToMin(current) || pl.desired >= *p.hpa.Spec.MinReplicas {
		return pl
	}
	pl.desired = *p.hpa.Spec.MinReplicas
	if pl.reason == "" {
		pl.reason = reasonBelowMin
	}
	return pl
}
