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
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/calculator"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// The decision trace (status.lastScaleDecision), kube-hpa's own extension
// in the shape of KEP-6107's last draft, behind KubeHPADecisionTrace. Each
// step of a pass returns, beside its result, the part of the trace it
// knows (a trace value); decide joins them into
// the outcome's decision, and writeStatus stores it only when it differs
// from the stored one in more than its time.

// trace is what the steps of a pass found that the decision reports.
type trace struct {
	// reason, when set, is the headline a step knows for sure (a pause, a
	// failure); unset, headline derives it.
	reason      v2.HPAScaleDecisionReason
	recommended *int32
	metrics     []v2.HPAMetricScaleDecision
	constraints []v2.HPAScaleDecisionConstraint
}

// with returns t with more constraints, sharing nothing with t.
func (t trace) with(cs ...v2.HPAScaleDecisionConstraint) trace {
	t.constraints = append(slices.Clip(t.constraints), cs...)
	return t
}

// traced reports whether this pass writes a decision trace: with the gate
// on, on the extended kind. Native autoscaling/v2 has no lastScaleDecision
// in v1.36: converted to native, the decision would be dropped on every
// write, and every pass would write again to put it back.
func (p *pass) traced() bool {
	return features.DecisionTrace(p.c.opts.Gates) && p.source.Name() != autoscalingv2.SchemeGroupVersion.String()
}

// decision assembles the decision of a pass that started from current and
// decided desired; nil with the gate off.
func (p *pass) decision(current, desired int32, t trace) *v2.HorizontalPodAutoscalerScaleDecision {
	if !p.traced() {
		return nil
	}
	if t.recommended != nil && *t.recommended == current && current > 0 && !slices.Contains(t.constraints, v2.ScaleDecisionConstraintTolerance) {
		// The metrics ask for the count there is: within tolerance of
		// their targets (or rounding to it).
		t = t.with(v2.ScaleDecisionConstraintTolerance)
	}
	reason := t.reason
	if reason == "" {
		reason = headline(current, desired, t.constraints)
	}
	return &v2.HorizontalPodAutoscalerScaleDecision{
		Time:                p.now,
		ObservedGeneration:  p.hpa.Generation,
		CurrentReplicas:     current,
		RecommendedReplicas: t.recommended,
		DesiredReplicas:     desired,
		Reason:              reason,
		Metrics:             t.metrics,
		Constraints:         t.constraints,
	}
}

// headline picks the reason of a decision from what changed the count, the
// step that acted last first: the bounds act after the policies, which act
// after stabilization, which acts after tolerance. Crossing zero is a
// reason of its own, whatever held the count.
func headline(current, desired int32, cs []v2.HPAScaleDecisionConstraint) v2.HPAScaleDecisionReason {
	has := func(c v2.HPAScaleDecisionConstraint) bool { return slices.Contains(cs, c) }
	switch {
	case current > 0 && desired == 0:
		return v2.ScaleDecisionScaleToZero
	case current == 0 && desired > 0:
		return v2.ScaleDecisionScaleFromZero
	case has(v2.ScaleDecisionConstraintMinReplicas) || has(v2.ScaleDecisionConstraintMaxReplicas):
		return v2.ScaleDecisionReplicaLimit
	case has(v2.ScaleDecisionConstraintScalingPolicy):
		return v2.ScaleDecisionPolicyLimited
	case has(v2.ScaleDecisionConstraintStabilization):
		return v2.ScaleDecisionStabilized
	case has(v2.ScaleDecisionConstraintTolerance):
		return v2.ScaleDecisionWithinTolerance
	}
	return v2.ScaleDecisionMetricRecommendation
}

// metricDecisions is the entry of each evaluated metric: best (-1: none)
// is the proposal that became the recommendation, and guarded says the
// valid proposals asked for a scale-down that invalid metrics forbid.
func metricDecisions(proposals []proposal, best int, guarded bool) []v2.HPAMetricScaleDecision {
	out := make([]v2.HPAMetricScaleDecision, len(proposals))
	for i, pr := range proposals {
		d := v2.HPAMetricScaleDecision{MetricIndex: int32(i)}
		switch {
		case pr.err != nil:
			d.Status, d.Reason = v2.MetricScaleDecisionInvalid, failureReason(pr.cause)
		default:
			d.Status, d.Reason = v2.MetricScaleDecisionValid, v2.MetricScaleDecisionComputed
			// A negative proposal (from negative readings) plans zero.
			d.ProposedReplicas = ptr.To(max(pr.replicas, 0))
			if i == best {
				d.Status = v2.MetricScaleDecisionUsed
			}
			switch {
			case pr.fallback:
				d.Reason = fallbackReason(pr.fallbackStrategy)
			case guarded:
				d.Reason = v2.MetricScaleDecisionSkippedScaleDown
			}
		}
		out[i] = d
	}
	return out
}

// failureReason classifies why a metric gave no proposal.
func failureReason(cause error) v2.HPAMetricScaleDecisionReason {
	switch {
	case calculator.IsNoMatchingPods(cause):
		return v2.MetricScaleDecisionNoMatchingPods
	case metrics.IsFetchFailure(cause):
		return v2.MetricScaleDecisionFetchFailed
	}
	return v2.MetricScaleDecisionInvalidMetricValue
}

// fallbackReason names the fallback and the strategy that made a proposal.
func fallbackReason(s v2.FallbackStrategy) v2.HPAMetricScaleDecisionReason {
	switch s {
	case v2.FallbackStrategyUseMax:
		return v2.MetricScaleDecisionFallbackUseMax
	case v2.FallbackStrategyUseMin:
		return v2.MetricScaleDecisionFallbackUseMin
	}
	return v2.MetricScaleDecisionFallbackStatic
}

// normalizationConstraints reads, from the conditions normalization set,
// what it changed: stabilization (AbleToScale) and the rate limits or the
// bounds (ScalingLimited, True only when they changed the count).
func normalizationConstraints(conds []condition.Condition) []v2.HPAScaleDecisionConstraint {
	var out []v2.HPAScaleDecisionConstraint
	for _, c := range conds {
		switch c.Type {
		case autoscalingv2.AbleToScale:
			if c.Reason == behavior.ReasonScaleUpStabilized || c.Reason == behavior.ReasonScaleDownStabilized {
				out = append(out, v2.ScaleDecisionConstraintStabilization)
			}
		case autoscalingv2.ScalingLimited:
			if c.Status != corev1.ConditionTrue {
				continue
			}
			switch c.Reason {
			case behavior.ReasonScaleUpLimit, behavior.ReasonScaleDownLimit:
				out = append(out, v2.ScaleDecisionConstraintScalingPolicy)
			case behavior.ReasonTooManyReplicas:
				out = append(out, v2.ScaleDecisionConstraintMaxReplicas)
			case behavior.ReasonTooFewReplicas:
				out = append(out, v2.ScaleDecisionConstraintMinReplicas)
			}
		}
	}
	return out
}

// recordDecision sets status.lastScaleDecision from a pass: removed with
// the gate off, so that nothing stale is left for a later re-enable;
// replaced when the pass decided something else than the stored decision
// (its time aside); kept otherwise, so that a pass deciding the same writes
// nothing. A nil decision (a pass that read no scale, or an invalid spec)
// keeps the stored one.
func (p *pass) recordDecision(st *v2.HorizontalPodAutoscalerStatus, d *v2.HorizontalPodAutoscalerScaleDecision) {
	switch {
	case !p.traced():
		st.LastScaleDecision = nil
	case d != nil && !sameDecision(st.LastScaleDecision, d):
		st.LastScaleDecision = d
	}
}

// sameDecision reports whether a and b decide the same, whenever each was
// made.
func sameDecision(a, b *v2.HorizontalPodAutoscalerScaleDecision) bool {
	if a == nil || b == nil {
		return a == b
	}
	untimed := *b
	untimed.Time = a.Time
	return equality.Semantic.DeepEqual(a, &untimed)
}
