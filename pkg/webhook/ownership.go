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

package webhook

import (
	"context"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// ReplacesAnnotation, on a kube-hpa HPA, names the native HPA of its
// namespace that it is taking over from (hpa-controller-manager migrate):
// that one autoscaler is allowed on the target while the handover lasts.
const ReplacesAnnotation = "autoscaling.kube-hpa.io/replaces"

// Autoscaler is one autoscaler of a target: its kind as an API version
// (autoscaling/v2 for a native HPA, which a KEDA ScaledObject owns) and its
// name.
type Autoscaler struct {
	Kind string
	Name string
}

func (a Autoscaler) String() string { return a.Kind + " " + a.Name }

// NativeKind is the Kind of a native HPA.
const NativeKind = "autoscaling/v2"

// Autoscalers finds the autoscalers of either kind in namespace whose
// scaleTargetRef names the object target names.
type Autoscalers interface {
	On(ctx context.Context, namespace string, target autoscalingv2.CrossVersionObjectReference) ([]Autoscaler, error)
}

// SameTarget reports whether two references name one object: the version
// is left out, since apps/v1 and apps/v1beta2 name the same Deployment.
func SameTarget(a, b autoscalingv2.CrossVersionObjectReference) bool {
	return a.Kind == b.Kind && a.Name == b.Name && group(a.APIVersion) == group(b.APIVersion)
}

func group(apiVersion string) string {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return apiVersion
	}
	return gv.Group
}

// checkOwnership refuses a kube-hpa HPA on a target that another
// autoscaler already scales: the two would undo each other's scale. An
// update is checked only when it moves the HPA to another target, so that
// an HPA admitted before the other one appeared can still be edited (the
// controller's guard stops it meanwhile). The native HPA named by
// ReplacesAnnotation is not counted: it is being handed over.
func (h *Handler) checkOwnership(ctx context.Context, req *admissionv1.AdmissionRequest, hpa, old *v2.HorizontalPodAutoscaler) field.ErrorList {
	if h.autoscalers == nil {
		return nil
	}
	if req.Operation == admissionv1.Update && old != nil && SameTarget(old.Spec.ScaleTargetRef, hpa.Spec.ScaleTargetRef) {
		return nil
	}
	path := field.NewPath("spec", "scaleTargetRef")
	// An object created by a namespaced request may leave its namespace
	// to the request.
	namespace := hpa.Namespace
	if namespace == "" {
		namespace = req.Namespace
	}
	found, err := h.autoscalers.On(ctx, namespace, hpa.Spec.ScaleTargetRef)
	if err != nil {
		return field.ErrorList{field.InternalError(path, fmt.Errorf("listing the autoscalers of the target: %w", err))}
	}
	replaces := hpa.Annotations[ReplacesAnnotation]
	var others []string
	for _, a := range found {
		if a.Kind == v2.SchemeGroupVersion.String() && a.Name == hpa.Name {
			continue
		}
		if a.Kind == NativeKind && replaces != "" && a.Name == replaces {
			continue
		}
		others = append(others, a.String())
	}
	if len(others) == 0 {
		return nil
	}
	return field.ErrorList{field.Forbidden(path, fmt.Sprintf(
		"%s %s is already autoscaled by %s; remove it first, or migrate it with hpa-controller-manager migrate",
		hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name, strings.Join(others, ", ")))}
}
