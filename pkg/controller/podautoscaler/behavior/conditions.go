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

package behavior

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
)

// Reasons of the AbleToScale and ScalingLimited conditions that say
// stabilization or a limit changed the recommendation: the decision trace
// reads them.
const (
	ReasonScaleUpStabilized   = "ScaleUpStabilized"
	ReasonScaleDownStabilized = "ScaleDownStabilized"
	ReasonScaleUpLimit        = "ScaleUpLimit"
	ReasonScaleDownLimit      = "ScaleDownLimit"
	ReasonTooManyReplicas     = "TooManyReplicas"
	ReasonTooFewReplicas      = "TooFewReplicas"
)

// verdict names an outcome of stabilization or of the limits; its reason
// and message are upstream's, word for word.
type verdict int

const (
	// Outcomes of stabilization, reported in AbleToScale.
	readyForNewScale verdict = iota
	scaleUpStabilized
	scaleDownStabilized

	// Outcomes of the limits, reported in ScalingLimited.
	desiredWithinRange
	scaleUpLimit
	scaleDownLimit
	tooManyReplicas
	tooFewReplicas
)

func (v verdict) reason() string {
	switch v {
	case readyForNewScale:
		return "ReadyForNewScale"
	case scaleUpStabilized:
		return ReasonScaleUpStabilized
	case scaleDownStabilized:
		return ReasonScaleDownStabilized
	case scaleUpLimit:
		return ReasonScaleUpLimit
	case scaleDownLimit:
		return ReasonScaleDownLimit
	case tooManyReplicas:
		return ReasonTooManyReplicas
	case tooFewReplicas:
		return ReasonTooFewReplicas
	default:
		return "DesiredWithinRange"
	}
}

func (v verdict) message() string {
	switch v {
	case readyForNewScale:
		return "recommended size matches current size"
	case scaleUpStabilized:
		return "recent recommendations were lower than current one, applying the lowest recent recommendation"
	case scaleDownStabilized:
		return "recent recommendations were higher than current one, applying the highest recent recommendation"
	case scaleUpLimit:
		return "the desired replica count is increasing faster than the maximum scale rate"
	case scaleDownLimit:
		return "the desired replica count is decreasing faster than the maximum scale rate"
	case tooManyReplicas:
		return "the desired replica count is more than the maximum replica count"
	case tooFewReplicas:
		return "the desired replica count is less than the minimum replica count"
	default:
		return "the desired count is within the acceptable range"
	}
}

// stabilizationCondition is AbleToScale after stabilization: why, when
// stabilization changed the recommendation, else ReadyForNewScale.
func stabilizationCondition(recommendation, stabilized int32, why verdict) condition.Condition {
	if stabilized == recommendation {
		why = readyForNewScale
	}
	return condition.Condition{
		Type:    autoscalingv2.AbleToScale,
		Status:  corev1.ConditionTrue,
		Reason:  why.reason(),
		Message: why.message(),
	}
}

// limitCondition is ScalingLimited: True only when the limits changed the
// stabilized recommendation, with the reason of the limit that applied or
// would have applied.
func limitCondition(stabilized, replicas int32, why verdict) condition.Condition {
	status := corev1.ConditionFalse
	if replicas != stabilized {
		status = corev1.ConditionTrue
	}
	return condition.Condition{
		Type:    autoscalingv2.ScalingLimited,
		Status:  status,
		Reason:  why.reason(),
		Message: why.message(),
	}
}
