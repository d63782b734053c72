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
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/apis/autoscaling/validation"
)

// Path is where the webhook is served.
const Path = "/validate-autoscaling-kube-hpa-io-v2-horizontalpodautoscaler"

// Handler validates HorizontalPodAutoscalers of the extended kind.
type Handler struct {
	gates featuregate.FeatureGate
	// autoscalers, when set, refuses an HPA whose target has another
	// autoscaler (ownership.go).
	autoscalers Autoscalers
}

// NewHandler returns a handler validating under gates.
func NewHandler(gates featuregate.FeatureGate) *Handler {
	return &Handler{gates: gates}
}

// WithAutoscalers makes the handler refuse a kube-hpa HPA on a target that
// another autoscaler, of either kind, already scales.
func (h *Handler) WithAutoscalers(a Autoscalers) *Handler {
	h.autoscalers = a
	return h
}

// Review decides one admission request. Creates and updates are validated;
// anything else is allowed (deletes need no check).
func (h *Handler) Review(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return h.ReviewContext(context.Background(), req)
}

// ReviewContext is Review under ctx, which bounds the look-up of the
// target's other autoscalers.
func (h *Handler) ReviewContext(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if req.SubResource != "" {
		// The status subresource is the controller's to write.
		return allowed()
	}
	var errs field.ErrorList
	switch req.Operation {
	case admissionv1.Create:
		hpa, err := decodeHPA(req.Object.Raw)
		if err != nil {
			return denied(err)
		}
		errs = validation.ValidateHorizontalPodAutoscaler(hpa, h.gates)
		if len(errs) == 0 {
			errs = h.checkOwnership(ctx, req, hpa, nil)
		}
	case admissionv1.Update:
		hpa, err := decodeHPA(req.Object.Raw)
		if err != nil {
			return denied(err)
		}
		old, err := decodeHPA(req.OldObject.Raw)
		if err != nil {
			return denied(err)
		}
		errs = validation.ValidateHorizontalPodAutoscalerUpdate(hpa, old, h.gates)
		if len(errs) == 0 {
			errs = h.checkOwnership(ctx, req, hpa, old)
		}
	default:
		return allowed()
	}
	if len(errs) == 0 {
		return allowed()
	}
	status := apierrors.NewInvalid(schema.GroupKind{Group: v2.GroupName, Kind: "HorizontalPodAutoscaler"}, req.Name, errs).ErrStatus
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &status}
}

func decodeHPA(raw []byte) (*v2.HorizontalPodAutoscaler, error) {
	hpa := &v2.HorizontalPodAutoscaler{}
	if err := json.Unmarshal(raw, hpa); err != nil {
		return nil, fmt.Errorf("decoding the HorizontalPodAutoscaler: %w", err)
	}
	return hpa, nil
}

func allowed() *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

func denied(err error) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{
		Allowed: false,
		Result:  &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: err.Error()},
	}
}
