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
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

var metricSourceTypes = []string{
	string(autoscalingv2.ContainerResourceMetricSourceType),
	string(autoscalingv2.ExternalMetricSourceType),
	string(autoscalingv2.ObjectMetricSourceType),
	string(autoscalingv2.PodsMetricSourceType),
	string(autoscalingv2.ResourceMetricSourceType),
}

func validateMetrics(metrics []v2.MetricSpec, fldPath *field.Path, opts options) field.ErrorList {
	var allErrs field.ErrorList
	for i := range metrics {
		allErrs = append(allErrs, validateMetricSpec(&metrics[i], fldPath.Index(i), opts)...)
	}
	return allErrs
}

// validateScaleToZero pins KEP-2021's rule: only a metric that does not
// come from the pods themselves can ask for replicas when there are none.
// Like upstream, the rule holds whatever the gate says, so that a spec
// refused for its gate also names the metric it would still lack.
func validateScaleToZero(spec *v2.HorizontalPodAutoscalerSpec, fldPath *field.Path) field.ErrorList {
	if spec.MinReplicas == nil || *spec.MinReplicas != 0 || spec.HasObjectOrExternalMetric() {
		return nil
	}
	return field.ErrorList{field.Forbidden(fldPath.Child("metrics"),
		"must specify at least one Object or External metric to support scaling to zero replicas")}
}

// populatedSource is one of the member fields of a MetricSpec that is set.
type populatedSource struct {
	name     string
	validate func(*field.Path) field.ErrorList
}

// populatedSources lists the set source fields in upstream's order, which
// decides the one whose content gets validated when several are set.
func populatedSources(spec *v2.MetricSpec, opts options) []populatedSource {
	var out []populatedSource
	if spec.Object != nil {
		out = append(out, populatedSource{"object", func(p *field.Path) field.ErrorList { return validateObjectSource(spec.Object, p, opts) }})
	}
	if spec.External != nil {
		out = append(out, populatedSource{"external", func(p *field.Path) field.ErrorList { return validateExternalSource(spec.External, p, opts) }})
	}
	if spec.Pods != nil {
		out = append(out, populatedSource{"pods", func(p *field.Path) field.ErrorList { return validatePodsSource(spec.Pods, p, opts) }})
	}
	if spec.Resource != nil {
		out = append(out, populatedSource{"resource", func(p *field.Path) field.ErrorList { return validateResourceSource(spec.Resource, p) }})
	}
	if spec.ContainerResource != nil {
		out = append(out, populatedSource{"containerResource", func(p *field.Path) field.ErrorList {
			return validateContainerResourceSource(spec.ContainerResource, p)
		}})
	}
	return out
}

// expectedSourceField maps a metric type to the member that must carry it.
func expectedSourceField(t autoscalingv2.MetricSourceType) (string, bool) {
	switch t {
	case autoscalingv2.ObjectMetricSourceType:
		return "object", true
	case autoscalingv2.PodsMetricSourceType:
		return "pods", true
	case autoscalingv2.ResourceMetricSourceType:
		return "resource", true
	case autoscalingv2.ExternalMetricSourceType:
		return "external", true
	case autoscalingv2.ContainerResourceMetricSourceType:
		return "containerResource", true
	}
	return "", false
}

func validateMetricSpec(spec *v2.MetricSpec, fldPath *field.Path, opts options) field.ErrorList {
	var allErrs field.ErrorList
	sources := populatedSources(spec, opts)
	if len(sources) > 0 {
		first := sources[0]
		allErrs = append(allErrs, first.validate(fldPath.Child(first.name))...)
	}

	expected, known := expectedSourceField(spec.Type)
	switch {
	case spec.Type == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must specify a metric source type"))
	case !known:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), spec.Type, metricSourceTypes))
	case !hasSource(sources, expected):
		allErrs = append(allErrs, field.Required(fldPath.Child(expected), "must populate information for the given metric source"))
	}

	if len(sources) > 1 {
		for _, s := range sources {
			if s.name != expected {
				allErrs = append(allErrs, field.Forbidden(fldPath.Child(s.name), "must populate the given metric source only"))
			}
		}
	}
	return allErrs
}

func hasSource(sources []populatedSource, name string) bool {
	for _, s := range sources {
		if s.name == name {
			return true
		}
	}
	return false
}

func validateObjectSource(src *v2.ObjectMetricSource, fldPath *field.Path, opts options) field.ErrorList {
	ref := src.DescribedObject
	allErrs := validateCrossVersionObjectReference(ref.Kind, ref.Name, ref.APIVersion, fldPath.Child("describedObject"), opts.describedObject)
	allErrs = append(allErrs, validateMetricIdentifier(src.Metric, fldPath.Child("metric"), opts)...)
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target", "averageValue"), "must set either a target value or averageValue"))
	}
	return allErrs
}

func validateExternalSource(src *v2.ExternalMetricSource, fldPath *field.Path, opts options) field.ErrorList {
	allErrs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"), opts)
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	targetPath := fldPath.Child("target")
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(targetPath.Child("averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		allErrs = append(allErrs, field.Forbidden(targetPath.Child("value"), "may not set both a target value for metric and a per-pod target"))
	}
	allErrs = append(allErrs, validateFallback(src.Fallback, fldPath.Child("fallback"), opts)...)
	return allErrs
}

// validateFallback pins KEP-5679's rules for the fallback of one External
// metric.
func validateFallback(fallback *v2.ExternalMetricFallback, fldPath *field.Path, opts options) field.ErrorList {
	if fallback == nil {
		return nil
	}
	if !opts.allowFallback {
		return field.ErrorList{field.Forbidden(fldPath, "requires the HPAExternalMetricFallback feature gate to be enabled")}
	}
	var allErrs field.ErrorList
	if d := fallback.FailureDurationSeconds; d != nil {
		allErrs = append(allErrs, validateFailureDuration(*d, fldPath.Child("failureDurationSeconds"), opts)...)
	}
	if fallback.Replicas < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("replicas"), fallback.Replicas, "must be greater than or equal to 1"))
	}
	allErrs = append(allErrs, validateFallbackStrategy(fallback.Strategy, fldPath.Child("strategy"), opts)...)
	return allErrs
}

// fallbackStrategies are the values of fallback.strategy, in the order
// messages list them.
var fallbackStrategies = []string{string(v2.FallbackStrategyStatic), string(v2.FallbackStrategyUseMax), string(v2.FallbackStrategyUseMin)}

// validateFallbackStrategy accepts Static (or unset, which defaults to it)
// whatever the gates say, since it is the behavior without a strategy; the
// others need HPAExternalMetricFallbackStrategy, unless the old object
// already used one (an object stored while the gate was on stays
// updatable after it is turned off).
func validateFallbackStrategy(s v2.FallbackStrategy, fldPath *field.Path, opts options) field.ErrorList {
	switch s {
	case "", v2.FallbackStrategyStatic:
		return nil
	case v2.FallbackStrategyUseMax, v2.FallbackStrategyUseMin:
		if !opts.allowFallbackStrategy {
			return field.ErrorList{field.Forbidden(fldPath, "requires the HPAExternalMetricFallbackStrategy feature gate to be enabled")}
		}
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, s, fallbackStrategies)}
}

// validateFailureDuration bounds failureDurationSeconds on both sides. The
// upper bound came later than the field, so a value above it that the old
// object already carried stays valid on update (it can be kept, not
// raised), as the API server's own ratcheting keeps an unchanged field.
func validateFailureDuration(d int64, fldPath *field.Path, opts options) field.ErrorList {
	switch {
	case d < v2.MinFailureDurationSeconds:
		return field.ErrorList{field.Invalid(fldPath, d, fmt.Sprintf("must be greater than or equal to %d", v2.MinFailureDurationSeconds))}
	case d > v2.MaxFailureDurationSeconds && !slices.Contains(opts.storedLongFailureDurations, d):
		return field.ErrorList{field.Invalid(fldPath, d, fmt.Sprintf("must be less than or equal to %d", v2.MaxFailureDurationSeconds))}
	}
	return nil
}

func validatePodsSource(src *v2.PodsMetricSource, fldPath *field.Path, opts options) field.ErrorList {
	allErrs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"), opts)
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target", "averageValue"), "must specify a positive target averageValue"))
	}
	return allErrs
}

func validateResourceSource(src *autoscalingv2.ResourceMetricSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if src.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	}
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	allErrs = append(allErrs, validateResourceTargetKind(src.Target, fldPath.Child("target"))...)
	return allErrs
}

func validateContainerResourceSource(src *autoscalingv2.ContainerResourceMetricSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if src.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	} else {
		allErrs = append(allErrs, validateContainerResourceName(src.Name, fldPath.Child("name"))...)
	}
	if src.Container == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("container"), "must specify a container"))
	} else {
		for _, msg := range validation.IsDNS1123Label(src.Container) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("container"), src.Container, msg))
		}
	}
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	allErrs = append(allErrs, validateResourceTargetKind(src.Target, fldPath.Child("target"))...)
	return allErrs
}

// validateResourceTargetKind: a resource target is either a utilization or a
// raw average, exactly one of them.
func validateResourceTargetKind(t autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	switch {
	case t.AverageUtilization == nil && t.AverageValue == nil:
		return field.ErrorList{field.Required(fldPath.Child("averageUtilization"), "must set either a target raw value or a target utilization")}
	case t.AverageUtilization != nil && t.AverageValue != nil:
		return field.ErrorList{field.Forbidden(fldPath.Child("averageValue"), "may not set both a target raw value and a target utilization")}
	}
	return nil
}

// standardContainerResources are the unprefixed resource names a container
// can request (besides huge pages).
var standardContainerResources = map[corev1.ResourceName]bool{
	corev1.ResourceCPU:              true,
	corev1.ResourceMemory:           true,
	corev1.ResourceEphemeralStorage: true,
}

// standardResources are the unprefixed resource names that core/v1 knows
// anywhere (container requests and quotas alike), besides huge pages. An
// unprefixed name outside this set is neither known nor qualified.
var standardResources = map[corev1.ResourceName]bool{
	corev1.ResourceCPU:                      true,
	corev1.ResourceMemory:                   true,
	corev1.ResourceEphemeralStorage:         true,
	corev1.ResourceStorage:                  true,
	corev1.ResourceRequestsCPU:              true,
	corev1.ResourceRequestsMemory:           true,
	corev1.ResourceRequestsEphemeralStorage: true,
	corev1.ResourceRequestsStorage:          true,
	corev1.ResourceLimitsCPU:                true,
	corev1.ResourceLimitsMemory:             true,
	corev1.ResourceLimitsEphemeralStorage:   true,
	corev1.ResourcePods:                     true,
	corev1.ResourceQuotas:                   true,
	corev1.ResourceServices:                 true,
	corev1.ResourceServicesNodePorts:        true,
	corev1.ResourceServicesLoadBalancers:    true,
	corev1.ResourceReplicationControllers:   true,
	corev1.ResourceSecrets:                  true,
	corev1.ResourceConfigMaps:               true,
	corev1.ResourcePersistentVolumeClaims:   true,
}

func isStandardResourceName(name corev1.ResourceName) bool {
	s := string(name)
	return standardResources[name] || strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) ||
		strings.HasPrefix(s, corev1.ResourceRequestsHugePagesPrefix)
}

func isStandardContainerResourceName(name corev1.ResourceName) bool {
	return standardContainerResources[name] || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// validateContainerResourceName applies core/v1's rules for a resource name
// in a container: a qualified name; unprefixed, a known resource that
// containers can request; prefixed, either in the kubernetes.io namespace or
// a valid extended resource name. An unprefixed unknown name fails both of
// the first two checks and gets both errors, as upstream reports it.
func validateContainerResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	if len(allErrs) > 0 {
		return allErrs
	}
	s := string(name)
	switch {
	case !strings.Contains(s, "/"):
		if !isStandardResourceName(name) {
			allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource type or fully qualified"))
		}
		if !isStandardContainerResourceName(name) {
			allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource for containers"))
		}
	case !strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) && !isExtendedResourceName(s):
		allErrs = append(allErrs, field.Invalid(fldPath, name, "doesn't follow extended resource name standard"))
	}
	return allErrs
}

// isExtendedResourceName mirrors the quota rule: the name must stay a
// qualified name once prefixed with "requests.".
func isExtendedResourceName(name string) bool {
	if strings.HasPrefix(name, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+name)) == 0
}

func validateMetricTarget(mt autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch mt.Type {
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must specify a metric target type"))
	case autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType:
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), mt.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if mt.Value != nil && mt.Value.Sign() != 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), mt.Value.String(), "must be positive"))
	}
	if mt.AverageValue != nil && mt.AverageValue.Sign() != 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("averageValue"), mt.AverageValue.String(), "must be positive"))
	}
	if mt.AverageUtilization != nil && *mt.AverageUtilization < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("averageUtilization"), *mt.AverageUtilization, "must be greater than 0"))
	}
	return allErrs
}

func validateMetricIdentifier(id v2.MetricIdentifier, fldPath *field.Path, opts options) field.ErrorList {
	allErrs := validatePathSegment(id.Name, fldPath.Child("name"), "must specify a metric name")
	return append(allErrs, validateMetricSource(id.Source, fldPath.Child("source"), opts)...)
}
