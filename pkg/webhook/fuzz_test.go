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
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// FuzzServeHTTP posts arbitrary bodies as JSON: whatever arrives, the
// answer is a review (200) or a bad request (400), never a panic, and a
// 200 always carries a response and no request.
func FuzzServeHTTP(f *testing.F) {
	for _, req := range []*admissionv1.AdmissionRequest{
		{UID: "u", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: []byte(validHPA)}},
		{UID: "u", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: []byte(minAboveMax)}},
		{UID: "u", Operation: admissionv1.Update, Object: runtime.RawExtension{Raw: []byte(fallbackHPA)}, OldObject: runtime.RawExtension{Raw: []byte(validHPA)}},
		{UID: "u", Operation: admissionv1.Update, SubResource: "status", Object: runtime.RawExtension{Raw: []byte(minAboveMax)}},
		{UID: "u", Operation: admissionv1.Delete},
	} {
		f.Add(reviewBody(f, req))
	}
	for _, seed := range []string{
		"", "null", "[]", "not json", `{"request":{}}`, `{"request":null}`,
		`{"request":{"operation":"UPDATE","object":{"spec":{"maxReplicas":"five"}}}}`,
		`{"request":{"operation":"CREATE","object":{"spec":{"metrics":[{"type":"External","external":null}]}}}}`,
		`{"request":{"operation":"UPDATE","object":{},"oldObject":null}}`,
	} {
		f.Add([]byte(seed))
	}
	h := NewHandler(features.NewFeatureGate())
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postReview(body))
		switch rec.Code {
		case http.StatusOK:
			var got admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("a 200 that is not a review: %v", err)
			}
			if got.Response == nil || got.Request != nil {
				t.Fatalf("a 200 with response %v and request %v", got.Response, got.Request)
			}
		case http.StatusBadRequest:
			if len(bytes.TrimSpace(rec.Body.Bytes())) == 0 {
				t.Fatal("a 400 without a reason")
			}
		case http.StatusRequestEntityTooLarge:
			if len(body) <= maxRequestBytes {
				t.Fatalf("413 for %d bytes", len(body))
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}
