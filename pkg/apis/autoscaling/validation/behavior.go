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
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Upper bounds of upstream's behavior fields.
const (
	MaxPeriodSeconds              int32 = 1800
	MaxStabilizationWindowSeconds int32 = 3600
)

var (
	selectPolicies = []string{
		string(autoscalingv2.DisabledPolicySelect),
		string(autoscalingv2.MaxChangePolicySelect),
		string(autoscalingv2.MinChangePolicySelect),
	}
	policyTypes = []string{
		string(autoscalingv2.PercentScalingPolicy),
		string(autoscalingv2.PodsScalingPolicy),
	}
)

// validateBehavior checks the scaling rules; the deprecated
// behavior.syncPeriodSeconds is syncperiod.go's.
func validateBehavior(behavior *v2.HorizontalPodAutoscalerBehavior, fldPath *field.Path, opts options) field.ErrorList {
	if behavior == nil {
		return nil
	}
	allErrs := validateScalingRules(behavior.ScaleUp, fldPath.Child("scaleUp"), opts)
	return append(allErrs, validateScalingRules(behavior.ScaleDown, fldPath.Child("scaleDown"), opts)...)
}

func validateScalingRules(rules *autoscalingv2.HPAScalingRules, fldPath *field.Path, opts options) field.ErrorList {
	if rules == nil {
		return nil
	}
	var allErrs field.ErrorList
	if w := rules.StabilizationWindowSeconds; w != nil {
		windowPath := fldPath.Child("stabilizationWindowSeconds")
		if *w < 0 {
			allErrs = append(allErrs, field.Invalid(windowPath, *w, "must be greater than or equal to zero"))
		}
		if *w > MaxStabilizationWindowSeconds {
			allErrs = append(allErrs, field.Invalid(windowPath, *w, fmt.Sprintf("must be less than or equal to %d", MaxStabilizationWindowSeconds)))
		}
	}
	if p := rules.SelectPolicy; p != nil && !slices.Contains(selectPolicies, string(*p)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("selectPolicy"), *p, selectPolicies))
	}
	policiesPath := fldPath.Child("policies")
	if len(rules.Policies) == 0 {
		allErrs = append(allErrs, field.Required(policiesPath, "must specify at least one Policy"))
	}
	for i, policy := range rules.Policies {
		allErrs = append(allErrs, validateScalingPolicy(policy, policiesPath.Index(i))...)
	}
	allErrs = append(allErrs, validateTolerance(rules, fldPath.Child("tolerance"), opts)...)
	return allErrs
}

func validateTolerance(rules *autoscalingv2.HPAScalingRules, fldPath *field.Path, opts options) field.ErrorList {
	switch {
	case rules.Tolerance == nil:
		return nil
	case rules.Tolerance.Sign() < 0:
		return field.ErrorList{field.Invalid(fldPath, rules.Tolerance.String(), "must be greater than or equal to 0")}
	}
	return nil
}

func validateScalingPolicy(policy autoscalingv2.HPAScalingPolicy, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !slices.Contains(policyTypes, string(policy.Type)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), policy.Type, policyTypes))
	}
	if policy.Value <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), policy.Value, "must be greater than zero"))
	}
	periodPath := fldPath.Child("periodSeconds")
	if policy.PeriodSeconds <= 0 {
		allErrs = append(allErrs, field.Invalid(periodPath, policy.PeriodSeconds, "must be greater than zero"))
	}
	if policy.PeriodSeconds > MaxPeriodSeconds {
		allErrs = append(allErrs, field.Invalid(periodPath, policy.PeriodSeconds, fmt.Sprintf("must be less than or equal to %d", MaxPeriodSeconds)))
	}
	return allErrs
}
