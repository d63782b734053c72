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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// defaultMetricsGroups are the API groups a metric is fetched from without
// a source. Naming one as a source is refused: for its own type it is a
// no-op that hides the default, for another type it is the wrong wire
// format, and metrics.k8s.io serves neither format.
var defaultMetricsGroups = []string{"custom.metrics.k8s.io", "external.metrics.k8s.io", "metrics.k8s.io"}

// validateMetricSource checks KEP-6382's metric.source.
func validateMetricSource(src *v2.MetricSourceReference, fldPath *field.Path, opts options) field.ErrorList {
	if src == nil {
		return nil
	}
	if !opts.allowMetricSource {
		return field.ErrorList{field.Forbidden(fldPath, "requires the HPAMetricSource feature gate to be enabled")}
	}
	groupPath := fldPath.Child("apiGroup")
	if src.APIGroup == "" {
		return field.ErrorList{field.Required(groupPath, "must name the API group that serves the metric")}
	}
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(src.APIGroup) {
		allErrs = append(allErrs, field.Invalid(groupPath, src.APIGroup, msg))
	}
	switch {
	case slices.Contains(defaultMetricsGroups, src.APIGroup):
		allErrs = append(allErrs, field.Invalid(groupPath, src.APIGroup, "must not be a default metrics API group: omit source to use it"))
	case kubernetesGroup(src.APIGroup):
		allErrs = append(allErrs, field.Invalid(groupPath, src.APIGroup, kubernetesGroupMessage))
	}
	return allErrs
}

const kubernetesGroupMessage = "must be the API group of a metrics provider, not one of Kubernetes' own (a single label such as apps, or a group under k8s.io or kubernetes.io)"

// kubernetesGroup reports whether group is one that Kubernetes serves
// itself: a single label (apps, batch, policy) or a group under the suffixes
// reserved for its APIs. None of them serves metrics but the default groups,
// and the controller reads a source with its own credentials: a user who may
// write an HPA must not make it read the cluster's own APIs.
func kubernetesGroup(group string) bool {
	if !strings.Contains(group, ".") {
		return true
	}
	for _, reserved := range []string{"k8s.io", "kubernetes.io"} {
		if group == reserved || strings.HasSuffix(group, "."+reserved) {
			return true
		}
	}
	return false
}

// usesMetricSource reports whether some metric of hpa names a source, which
// an update may keep with the gate off.
func usesMetricSource(hpa *v2.HorizontalPodAutoscaler) bool {
	if hpa == nil {
		return false
	}
	for i := range hpa.Spec.Metrics {
		for _, id := range hpa.Spec.Metrics[i].Identifiers() {
			if id.Source != nil {
				return true
			}
		}
	}
	return false
}
