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
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// validateSyncPeriods checks KEP-6003's spec.syncPeriodSeconds and the
// field where the KEP first put it, behavior.syncPeriodSeconds: an HPA
// stored with the old field keeps it, unchanged, and its meaning (the
// controller still reads it); a new or changed value is refused with an
// error that names the new field, and so is the old field beside the new.
func validateSyncPeriods(spec *v2.HorizontalPodAutoscalerSpec, fldPath *field.Path, opts options) field.ErrorList {
	allErrs := validateSyncPeriod(spec.SyncPeriodSeconds, fldPath.Child("syncPeriodSeconds"), opts)
	if spec.Behavior == nil || spec.Behavior.SyncPeriodSeconds == nil {
		return allErrs
	}
	oldPath := fldPath.Child("behavior", "syncPeriodSeconds")
	seconds := *spec.Behavior.SyncPeriodSeconds
	switch {
	case spec.SyncPeriodSeconds != nil:
		allErrs = append(allErrs, field.Forbidden(oldPath, "must not be set with spec.syncPeriodSeconds, which replaces it (KEP-6003): remove it"))
	case opts.storedBehaviorSyncPeriod == nil || *opts.storedBehaviorSyncPeriod != seconds:
		allErrs = append(allErrs, field.Forbidden(oldPath, "moved to spec.syncPeriodSeconds (KEP-6003): set that field instead; an HPA stored with this one may only keep it unchanged"))
	default:
		allErrs = append(allErrs, validateSyncPeriodBounds(seconds, v2.MinBehaviorSyncPeriodSeconds, oldPath)...)
	}
	return allErrs
}

// validateSyncPeriod checks spec.syncPeriodSeconds. A value refused by its
// gate is not checked further: the gate's error is the one to fix.
func validateSyncPeriod(seconds *int32, fldPath *field.Path, opts options) field.ErrorList {
	switch {
	case seconds == nil:
		return nil
	case !opts.allowSyncPeriod:
		return field.ErrorList{field.Forbidden(fldPath, "requires the HPAConfigurableSyncPeriod feature gate to be enabled")}
	}
	return validateSyncPeriodBounds(*seconds, v2.MinSyncPeriodSeconds, fldPath)
}

func validateSyncPeriodBounds(seconds, lowest int32, fldPath *field.Path) field.ErrorList {
	switch {
	case seconds < lowest:
		return field.ErrorList{field.Invalid(fldPath, seconds, fmt.Sprintf("must be greater than or equal to %d", lowest))}
	case seconds > v2.MaxSyncPeriodSeconds:
		return field.ErrorList{field.Invalid(fldPath, seconds, fmt.Sprintf("must be less than or equal to %d", v2.MaxSyncPeriodSeconds))}
	}
	return nil
}
