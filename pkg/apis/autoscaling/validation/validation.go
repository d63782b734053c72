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

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// ValidateHorizontalPodAutoscaler validates an HPA being created. The object
// is validated as the API stores it, so SetDefaults is applied to a copy
// first; hpa itself is not changed.
func ValidateHorizontalPodAutoscaler(hpa *v2.HorizontalPodAutoscaler, gates featuregate.FeatureGate) field.ErrorList {
	hpa = defaulted(hpa)
	return validateSpec(&hpa.Spec, field.NewPath("spec"), optionsFor(hpa, nil, gates))
}

// ValidateHorizontalPodAutoscalerUpdate validates an update of oldHPA to
// newHPA. Gated fields that oldHPA already used stay allowed.
func ValidateHorizontalPodAutoscalerUpdate(newHPA, oldHPA *v2.HorizontalPodAutoscaler, gates featuregate.FeatureGate) field.ErrorList {
	newHPA, oldHPA = defaulted(newHPA), defaulted(oldHPA)
	return validateSpec(&newHPA.Spec, field.NewPath("spec"), optionsFor(newHPA, oldHPA, gates))
}

// ValidateStored validates an HPA that is already stored, as a controller
// sees it: every structural rule applies, but a gated field is not an error
// merely because its gate is off now (the controller ignores such a field
// instead, as the API server would have kept it).
func ValidateStored(hpa *v2.HorizontalPodAutoscaler, gates featuregate.FeatureGate) field.ErrorList {
	return ValidateHorizontalPodAutoscalerUpdate(hpa, hpa, gates)
}

func defaulted(hpa *v2.HorizontalPodAutoscaler) *v2.HorizontalPodAutoscaler {
	out := hpa.DeepCopy()
	v2.SetDefaults(out)
	return out
}

func validateSpec(spec *v2.HorizontalPodAutoscalerSpec, fldPath *field.Path, opts options) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, validateReplicaBounds(spec, fldPath, opts)...)
	allErrs = append(allErrs, validateCrossVersionObjectReference(spec.ScaleTargetRef.Kind, spec.ScaleTargetRef.Name,
		spec.ScaleTargetRef.APIVersion, fldPath.Child("scaleTargetRef"), opts.scaleTargetRef)...)
	allErrs = append(allErrs, validateMetrics(spec.Metrics, fldPath.Child("metrics"), opts)...)
	allErrs = append(allErrs, validateScaleToZero(spec, fldPath)...)
	allErrs = append(allErrs, validateSyncPeriods(spec, fldPath, opts)...)
	allErrs = append(allErrs, validateBehavior(spec.Behavior, fldPath.Child("behavior"), opts)...)
	return allErrs
}

func validateReplicaBounds(spec *v2.HorizontalPodAutoscalerSpec, fldPath *field.Path, opts options) field.ErrorList {
	var allErrs field.ErrorList
	minPath, maxPath := fldPath.Child("minReplicas"), fldPath.Child("maxReplicas")
	if spec.MinReplicas != nil && *spec.MinReplicas < opts.minReplicasLowerBound {
		allErrs = append(allErrs, field.Invalid(minPath, *spec.MinReplicas, minReplicasMessage(opts)))
	}
	switch {
	case spec.MaxReplicas == 0:
		allErrs = append(allErrs, field.Required(maxPath, "must be set and greater than 0"))
	case spec.MaxReplicas < 0:
		allErrs = append(allErrs, field.Invalid(maxPath, spec.MaxReplicas, "must be greater than or equal to 1"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		allErrs = append(allErrs, field.Invalid(maxPath, spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	return allErrs
}

func minReplicasMessage(opts options) string {
	if opts.minReplicasLowerBound == 1 {
		return "must be greater than or equal to 1 (0 requires the HPAScaleToZero feature gate)"
	}
	return fmt.Sprintf("must be greater than or equal to %d", opts.minReplicasLowerBound)
}

// validateCrossVersionObjectReference takes the reference's fields rather
// than the struct, because scaleTargetRef and describedObject are the same
// upstream type used in two places with different apiVersion rules.
func validateCrossVersionObjectReference(kind, name, apiVersion string, fldPath *field.Path, opts referenceOptions) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, validatePathSegment(kind, fldPath.Child("kind"), "")...)
	allErrs = append(allErrs, validatePathSegment(name, fldPath.Child("name"), "")...)
	if err := validateAPIVersion(apiVersion, opts); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), apiVersion, err.Error()))
	}
	return allErrs
}

// validatePathSegment checks a value that ends up in a URL path segment: a
// kind, an object name, a metric name.
func validatePathSegment(value string, fldPath *field.Path, requiredMsg string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(fldPath, requiredMsg)}
	}
	var allErrs field.ErrorList
	for _, msg := range content.IsPathSegmentName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

func validateAPIVersion(apiVersion string, opts referenceOptions) error {
	if opts.allowInvalidAPIVersion {
		return nil
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return err
	}
	if !opts.allowEmptyAPIGroup && gv.Group == "" {
		return fmt.Errorf("apiVersion must specify API group")
	}
	return nil
}
