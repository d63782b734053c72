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
// negative, and that an External metric's fallbackStatus, when set, is one
// of the known values. No gate applies: a status is what the controller
// observed, and the controller writes no fallback status while its gate is
// off.
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
	return allErrs
}
