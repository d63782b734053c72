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

package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HorizontalPodAutoscalerScaleDecision is the latest scaling decision of
// the controller: what each metric proposed, what was recommended, what
// constrained it and what was decided. A kube-hpa extension, in the shape
// of KEP-6107's last draft (closed unmerged upstream). It is a snapshot,
// replaced only when the decision changes: a pass that decides the same
// (whatever its time) leaves it as it is. It requires the
// KubeHPADecisionTrace feature gate.
type HorizontalPodAutoscalerScaleDecision struct {
	// time is when the controller made this decision.
	Time metav1.Time `json:"time"`

	// observedGeneration is the generation of the HPA the decision was made
	// for; metricIndex points into spec.metrics of that generation.
	ObservedGeneration int64 `json:"observedGeneration"`

	// currentReplicas is the target's replica count the decision started
	// from.
	// +kubebuilder:validation:Minimum=0
	CurrentReplicas int32 `json:"currentReplicas"`

	// recommendedReplicas is the count the metrics asked for (the largest
	// valid proposal), before tolerance kept the current count and before
	// stabilization, behavior policies and minReplicas/maxReplicas; absent
	// when no metric gave one.
	// +optional
	RecommendedReplicas *int32 `json:"recommendedReplicas,omitempty"`

	// desiredReplicas is the count decided: what the target was scaled to,
	// or kept at.
	// +kubebuilder:validation:Minimum=0
	DesiredReplicas int32 `json:"desiredReplicas"`

	// reason is the headline of the decision. Clients must accept values
	// they do not know: new ones may come.
	Reason HPAScaleDecisionReason `json:"reason"`

	// metrics has one entry per metric of spec.metrics that was evaluated,
	// in spec order; none when the decision needed no metric.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Metrics []HPAMetricScaleDecision `json:"metrics,omitempty"`

	// constraints are what moved desiredReplicas away from
	// recommendedReplicas (or, for Tolerance, kept it at currentReplicas),
	// in no particular order.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Constraints []HPAScaleDecisionConstraint `json:"constraints,omitempty"`
}

// HPAScaleDecisionReason is the headline of a decision.
type HPAScaleDecisionReason string

// Reasons of KEP-6107's last draft, then those it lacked.
const (
	// ScaleDecisionMetricRecommendation: the metrics' recommendation was
	// applied as it was.
	ScaleDecisionMetricRecommendation HPAScaleDecisionReason = "MetricRecommendation"
	// ScaleDecisionWithinTolerance: the metrics are within tolerance of
	// their targets, so the count stays.
	ScaleDecisionWithinTolerance HPAScaleDecisionReason = "WithinTolerance"
	// ScaleDecisionStabilized: stabilization changed the recommendation.
	ScaleDecisionStabilized HPAScaleDecisionReason = "Stabilized"
	// ScaleDecisionPolicyLimited: a scaling policy limited the change.
	ScaleDecisionPolicyLimited HPAScaleDecisionReason = "PolicyLimited"
	// ScaleDecisionReplicaLimit: minReplicas or maxReplicas decided.
	ScaleDecisionReplicaLimit HPAScaleDecisionReason = "ReplicaLimit"
	// ScaleDecisionInvalidMetrics: some metrics are invalid and the valid
	// ones would scale down, which the controller does not do.
	ScaleDecisionInvalidMetrics HPAScaleDecisionReason = "InvalidMetrics"
	// ScaleDecisionRecommendationFailed: no metric gave a count.
	ScaleDecisionRecommendationFailed HPAScaleDecisionReason = "RecommendationFailed"

	// ScaleDecisionScaleToZero: the controller takes the workload to zero
	// replicas (KEP-2021).
	ScaleDecisionScaleToZero HPAScaleDecisionReason = "ScaleToZero"
	// ScaleDecisionScaleFromZero: the controller brings a workload it had
	// scaled to zero back (KEP-2021).
	ScaleDecisionScaleFromZero HPAScaleDecisionReason = "ScaleFromZero"
	// ScaleDecisionScalingDisabled: the workload is at zero replicas that
	// this controller did not choose: scaling is paused, no metric is asked.
	ScaleDecisionScalingDisabled HPAScaleDecisionReason = "ScalingDisabled"
)

// HPAMetricScaleDecision is what one metric of spec.metrics proposed.
type HPAMetricScaleDecision struct {
	// metricIndex is the metric's index in spec.metrics of the decision's
	// observedGeneration.
	// +kubebuilder:validation:Minimum=0
	MetricIndex int32 `json:"metricIndex"`

	// proposedReplicas is the count this metric asked for; absent when it
	// gave none.
	// +optional
	ProposedReplicas *int32 `json:"proposedReplicas,omitempty"`

	// status is Used for the metric whose proposal became the
	// recommendation, Valid for the other metrics that gave one, Invalid
	// for those that gave none.
	Status HPAMetricScaleDecisionStatus `json:"status"`

	// reason says why the metric has its status. Clients must accept
	// values they do not know.
	// +optional
	Reason HPAMetricScaleDecisionReason `json:"reason,omitempty"`
}

// HPAMetricScaleDecisionStatus says whether a metric gave a proposal, and
// whether it was the one used.
type HPAMetricScaleDecisionStatus string

const (
	MetricScaleDecisionUsed    HPAMetricScaleDecisionStatus = "Used"
	MetricScaleDecisionValid   HPAMetricScaleDecisionStatus = "Valid"
	MetricScaleDecisionInvalid HPAMetricScaleDecisionStatus = "Invalid"
)

// HPAMetricScaleDecisionReason says why a metric has its status.
type HPAMetricScaleDecisionReason string

// Reasons of KEP-6107's last draft, then those it lacked.
const (
	// MetricScaleDecisionComputed: the proposal was computed from the
	// metric's value.
	MetricScaleDecisionComputed HPAMetricScaleDecisionReason = "Computed"
	// MetricScaleDecisionFetchFailed: the metrics API failed to give the
	// metric's value (an error, nothing, a time-out).
	MetricScaleDecisionFetchFailed HPAMetricScaleDecisionReason = "FetchFailed"
	// MetricScaleDecisionInvalidMetricValue: the value came but cannot give
	// a proposal (a pod without a request, a target that cannot be used).
	MetricScaleDecisionInvalidMetricValue HPAMetricScaleDecisionReason = "InvalidMetricValue"
	// MetricScaleDecisionNoMatchingPods: no pod, or no reading of a known
	// pod, to compute from.
	MetricScaleDecisionNoMatchingPods HPAMetricScaleDecisionReason = "NoMatchingPods"
	// MetricScaleDecisionSkippedScaleDown: the metric asked for fewer
	// replicas, which invalid metrics forbid.
	MetricScaleDecisionSkippedScaleDown HPAMetricScaleDecisionReason = "SkippedScaleDown"

	// The proposal is the metric's fallback (KEP-5679), under the strategy
	// the reason names.
	MetricScaleDecisionFallbackStatic HPAMetricScaleDecisionReason = "FallbackStatic"
	MetricScaleDecisionFallbackUseMax HPAMetricScaleDecisionReason = "FallbackUseMax"
	MetricScaleDecisionFallbackUseMin HPAMetricScaleDecisionReason = "FallbackUseMin"
)

// HPAScaleDecisionConstraint is one thing that moved the decided count
// away from the recommendation.
type HPAScaleDecisionConstraint string

const (
	ScaleDecisionConstraintMinReplicas        HPAScaleDecisionConstraint = "MinReplicas"
	ScaleDecisionConstraintMaxReplicas        HPAScaleDecisionConstraint = "MaxReplicas"
	ScaleDecisionConstraintStabilization      HPAScaleDecisionConstraint = "Stabilization"
	ScaleDecisionConstraintTolerance          HPAScaleDecisionConstraint = "Tolerance"
	ScaleDecisionConstraintScalingPolicy      HPAScaleDecisionConstraint = "ScalingPolicy"
	ScaleDecisionConstraintInvalidMetricGuard HPAScaleDecisionConstraint = "InvalidMetricGuard"
)
