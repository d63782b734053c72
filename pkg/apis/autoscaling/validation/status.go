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

package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

var fallbackStatuses = []string{
	string(v2.FallbackStatusFallback),
	string(v2.FallbackStatusNormal),
}

// ValidateStatus validates the status of an HPA, as written through the
// status subresource: upstream's rule that the replica counts are not
// negative, that an External metric's fallbackStatus, when set, is one of
// the known values, and that lastScaleDecision's counts are not negative
// and name each metric once. No gate applies: a status is what the
// controller observed, and the controller writes neither fallback status
// nor decision while their gates are off. A decision's reasons are not
// checked against a list: new ones may come (clients must accept them).
func ValidateStatus(hpa *v2.HorizontalPodAutoscaler) field.ErrorList {
	var allErrs field.ErrorList
	fldPath := field.NewPath("status")
	status := &hpa.Status
	if status.CurrentReplicas < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("currentReplicas"), status.CurrentReplicas, "must be greater than or equal to 0"))
	}
	if status.DesiredReplicas < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("desiredReplicas"), status.DesiredReplicas, "must be greater than or equal to 0"))
	}
	for i, m := range status.CurrentMetrics {
		if m.External == nil || m.External.FallbackStatus == "" {
			continue
		}
		switch m.External.FallbackStatus {
		case v2.FallbackStatusNormal, v2.FallbackStatusFallback:
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("currentMetrics").Index(i).Child("external", "fallbackStatus"),
				m.External.FallbackStatus, fallbackStatuses))
		}
	}
	return append(allErrs, validateScaleDecision(status.LastScaleDecision, fldPath.Child("lastScaleDecision"))...)
}

func validateScaleDecision(d *v2.HorizontalPodAutoscalerScaleDecision, fldPath *field.Path) field.ErrorList {
	if d == nil {
		return nil
	}
	var allErrs field.ErrorList
	nonNegative := func(path *field.Path, v int32) {
		if v < 0 {
			allErrs = append(allErrs, field.Invalid(path, v, "must be greater than or equal to 0"))
		}
	}
	nonNegative(fldPath.Child("currentReplicas"), d.CurrentReplicas)
	nonNegative(fldPath.Child("desiredReplicas"), d.DesiredReplicas)
	if d.RecommendedReplicas != nil {
		nonNegative(fldPath.Child("recommendedReplicas"), *d.RecommendedReplicas)
	}
	seen := map[int32]bool{}
	for i, m := range d.Metrics {
		path := fldPath.Child("metrics").Index(i)
		nonNegative(path.Child("metricIndex"), m.MetricIndex)
		if seen[m.MetricIndex] {
			allErrs = append(allErrs, field.Duplicate(path.Child("metricIndex"), m.MetricIndex))
		}
		seen[m.MetricIndex] = true
		if m.ProposedReplicas != nil {
			nonNegative(path.Child("proposedReplicas"), *m.ProposedReplicas)
		}
	}
	return allErrs
}
