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
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// reviewBody is an admission.k8s.io/v1 AdmissionReview of req.
func reviewBody(t testing.TB, req *admissionv1.AdmissionRequest) []byte {
	t.Helper()
	review := admissionv1.AdmissionReview{Request: req}
	review.APIVersion, review.Kind = "admission.k8s.io/v1", "AdmissionReview"
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// hpaOfSize is validHPA grown by an annotation to exactly size bytes.
func hpaOfSize(t testing.TB, size int) []byte {
	t.Helper()
	const marker = `"name":"web","namespace":"default"`
	prefix := marker + `,"annotations":{"a":"`
	grown := strings.Replace(validHPA, marker, prefix+`"}`, 1)
	pad := size - len(grown)
	if pad < 0 {
		t.Fatalf("an HPA cannot be as small as %d bytes", size)
	}
	return []byte(strings.Replace(validHPA, marker, prefix+strings.Repeat("x", pad)+`"}`, 1))
}

func postReview(body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, Path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

func TestServeHTTPAnswersWithTheRequestUID(t *testing.T) {
	body := reviewBody(t, &admissionv1.AdmissionRequest{
		UID: types.UID("abc"), Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: []byte(minAboveMax)},
	})
	rec := httptest.NewRecorder()
	NewHandler(features.NewFeatureGate()).ServeHTTP(rec, postReview(body))
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d: %s", rec.Code, rec.Body)
	}
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Response == nil || got.Response.UID != "abc" || got.Response.Allowed || got.Request != nil {
		t.Fatalf("response = %+v", got.Response)
	}
	if got.Response.Result.Code != http.StatusUnprocessableEntity || got.Response.Result.Reason != "Invalid" {
		t.Errorf("result = %+v, want a 422 Invalid status", got.Response.Result)
	}
}

func TestServeHTTPStatus(t *testing.T) {
	create := reviewBody(t, &admissionv1.AdmissionRequest{UID: "u", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: []byte(validHPA)}})
	// The largest review an API server sends: an update whose object
	// and oldObject are each at its 3 MiB body limit.
	largestUpdate := reviewBody(t, &admissionv1.AdmissionRequest{UID: "u", Operation: admissionv1.Update,
		Object: runtime.RawExtension{Raw: hpaOfSize(t, 3<<20)}, OldObject: runtime.RawExtension{Raw: hpaOfSize(t, 3<<20)}})
	sevenMiB := bytes.Repeat([]byte(" "), 7<<20)
	copy(sevenMiB, create)

	cases := []struct {
		name        string
		method      string
		contentType string
		body        []byte
		// unannounced sends the body without a Content-Length, as a
		// chunked request does.
		unannounced bool
		wantStatus  int
		wantReason  string
	}{
		{name: "a review is answered", method: http.MethodPost, contentType: "application/json", body: create,
			wantStatus: http.StatusOK},
		{name: "a media type with parameters is JSON still", method: http.MethodPost, contentType: "application/json; charset=utf-8", body: create,
			wantStatus: http.StatusOK},
		{name: "a review of two objects at the API server's size limit is read", method: http.MethodPost, contentType: "application/json", body: largestUpdate,
			wantStatus: http.StatusOK},
		{name: "GET is not served", method: http.MethodGet,
			wantStatus: http.StatusMethodNotAllowed, wantReason: "only POST is served, not GET"},
		{name: "a body without a Content-Type is refused", method: http.MethodPost, body: create,
			wantStatus: http.StatusUnsupportedMediaType, wantReason: `not Content-Type ""`},
		{name: "a body that is not JSON by its Content-Type is refused", method: http.MethodPost, contentType: "application/yaml", body: create,
			wantStatus: http.StatusUnsupportedMediaType, wantReason: `not Content-Type "application/yaml"`},
		{name: "a 7 MiB body is too large before it is read", method: http.MethodPost, contentType: "application/json", body: sevenMiB,
			wantStatus: http.StatusRequestEntityTooLarge, wantReason: "larger than " + strconv.Itoa(maxRequestBytes) + " bytes"},
		{name: "a 7 MiB body without a Content-Length is too large once read past the limit", method: http.MethodPost, contentType: "application/json", body: sevenMiB, unannounced: true,
			wantStatus: http.StatusRequestEntityTooLarge, wantReason: "larger than " + strconv.Itoa(maxRequestBytes) + " bytes"},
		{name: "garbage is a bad request naming the JSON error", method: http.MethodPost, contentType: "application/json", body: []byte("not json"),
			wantStatus: http.StatusBadRequest, wantReason: "the body is not a JSON AdmissionReview: invalid character 'o' in literal null"},
		{name: "a truncated review is a bad request", method: http.MethodPost, contentType: "application/json", body: create[:len(create)/2],
			wantStatus: http.StatusBadRequest, wantReason: "the body is not a JSON AdmissionReview: unexpected end of JSON input"},
		{name: "an empty body is a bad request", method: http.MethodPost, contentType: "application/json", body: nil,
			wantStatus: http.StatusBadRequest, wantReason: "the body is not a JSON AdmissionReview: unexpected end of JSON input"},
		{name: "a JSON array is a bad request", method: http.MethodPost, contentType: "application/json", body: []byte("[]"),
			wantStatus: http.StatusBadRequest, wantReason: "cannot unmarshal array"},
		{name: "a review without a request is a bad request", method: http.MethodPost, contentType: "application/json",
			body:       []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`),
			wantStatus: http.StatusBadRequest, wantReason: "the AdmissionReview has no request"},
		{name: "null is a review without a request", method: http.MethodPost, contentType: "application/json", body: []byte("null"),
			wantStatus: http.StatusBadRequest, wantReason: "the AdmissionReview has no request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = bytes.NewReader(tc.body)
			if tc.unannounced {
				// A reader NewRequest cannot take the length of.
				body = io.MultiReader(body)
			}
			r := httptest.NewRequest(tc.method, Path, body)
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			if tc.unannounced && r.ContentLength != -1 {
				t.Fatalf("the request announces %d bytes", r.ContentLength)
			}
			rec := httptest.NewRecorder()
			NewHandler(features.NewFeatureGate()).ServeHTTP(rec, r)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status = %d, want %d: %s", rec.Code, tc.wantStatus, truncate(rec.Body.String()))
			}
			if got := rec.Body.String(); !strings.Contains(got, tc.wantReason) {
				t.Errorf("reason %q does not contain %q", truncate(got), tc.wantReason)
			}
			if tc.wantStatus == http.StatusMethodNotAllowed && rec.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q, want POST", rec.Header().Get("Allow"))
			}
		})
	}
}

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
