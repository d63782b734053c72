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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/klog/v2"
)

// maxRequestBytes is the largest AdmissionReview an API server sends. It
// decodes at most 3 MiB of a write request's body (its default
// MaxRequestBodyBytes), and the review of an update carries two objects,
// object and oldObject: 6 MiB of objects. The rest of a review (uid, kind,
// resource, names, the user and its groups, options) is a few KiB; 256 KiB
// leaves room for a user in very many groups. A larger body did not come
// from an API server, and reading it would only cost memory.
const maxRequestBytes = 6<<20 + 256<<10

// refusal is an HTTP request that gets no review: the status and the
// reason told to the caller.
type refusal struct {
	status int
	reason string
}

// ServeHTTP answers one AdmissionReview.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logger := klog.FromContext(r.Context())
	review, refused := readReview(w, r)
	if refused != nil {
		logger.V(2).Info("Refused an admission request", "remoteAddr", r.RemoteAddr, "status", refused.status, "reason", refused.reason)
		http.Error(w, refused.reason, refused.status)
		return
	}
	review.Response = h.ReviewContext(r.Context(), review.Request)
	review.Response.UID = review.Request.UID
	review.Request = nil
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(review); err != nil {
		logger.Error(err, "Writing the admission response")
	}
}

// readReview reads the AdmissionReview of r, or says why there is none.
func readReview(w http.ResponseWriter, r *http.Request) (*admissionv1.AdmissionReview, *refusal) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return nil, &refusal{http.StatusMethodNotAllowed, fmt.Sprintf("only POST is served, not %s", r.Method)}
	}
	contentType := r.Header.Get("Content-Type")
	if mediaType, _, err := mime.ParseMediaType(contentType); err != nil || mediaType != "application/json" {
		return nil, &refusal{http.StatusUnsupportedMediaType, fmt.Sprintf("the body must be an application/json AdmissionReview, not Content-Type %q", contentType)}
	}
	tooLarge := &refusal{http.StatusRequestEntityTooLarge,
		fmt.Sprintf("the body is larger than %d bytes, more than an AdmissionReview carrying two objects at the API server's size limit", maxRequestBytes)}
	if r.ContentLength > maxRequestBytes {
		// Refused before reading any of it.
		return nil, tooLarge
	}
	var body bytes.Buffer
	if r.ContentLength > 0 {
		// One allocation of the announced size rather than a series of
		// doublings up to it.
		body.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, maxRequestBytes)); err != nil {
		var maxBytes *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &maxBytes):
			return nil, tooLarge
		case errors.As(err, &netErr) && netErr.Timeout():
			return nil, &refusal{http.StatusRequestTimeout, "the body did not arrive within the server's read timeout"}
		default:
			return nil, &refusal{http.StatusBadRequest, fmt.Sprintf("reading the body: %v", err)}
		}
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body.Bytes(), review); err != nil {
		return nil, &refusal{http.StatusBadRequest, fmt.Sprintf("the body is not a JSON AdmissionReview: %v", err)}
	}
	if review.Request == nil {
		return nil, &refusal{http.StatusBadRequest, "the AdmissionReview has no request"}
	}
	return review, nil
}
