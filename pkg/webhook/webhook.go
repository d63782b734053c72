package webhook

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/apis/autoscaling/validation"
)

// Path is where the webhook is served.
const Path = "/validate-autoscaling-kube-hpa-io-v2-horizontalpodautoscaler"

// maxRequestBytes bounds a review body; the API server's own object limit
// is 3 MiB and a review carries two objects.
const maxRequestBytes = 7 << 20

// Handler validates HorizontalPodAutoscalers of the extended kind.
type Handler struct {
	gates featuregate.FeatureGate
}

// NewHandler returns a handler validating under gates.
func NewHandler(gates featuregate.FeatureGate) *Handler {
	return &Handler{gates: gates}
}

// ServeHTTP answers one AdmissionReview.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logger := klog.FromContext(r.Context())
	if r.Method != http.MethodPost {
		http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
		return
	}
	review, err := decodeReview(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	review.Response = h.Review(review.Request)
	review.Response.UID = review.Request.UID
	review.Request = nil
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(review); err != nil {
		logger.Error(err, "Writing the admission response")
	}
}

func decodeReview(r *http.Request) (*admissionv1.AdmissionReview, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the request: %w", err)
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body, review); err != nil {
		return nil, fmt.Errorf("decoding the AdmissionReview: %w", err)
	}
	if review.Request == nil {
		return nil, fmt.Errorf("the AdmissionReview has no request")
	}
	return review, nil
}

// Review decides one admission request. Creates and updates are validated;
// anything else is allowed (deletes need no check).
func (h *Handler) Review(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
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
