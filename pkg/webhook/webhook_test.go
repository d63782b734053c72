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
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

const validHPA = `{"apiVersion":"autoscaling.kube-hpa.io/v2","kind":"HorizontalPodAutoscaler",
"metadata":{"name":"web","namespace":"default"},
"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5,
"metrics":[{"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"10"}}}]}}`

const fallbackHPA = `{"apiVersion":"autoscaling.kube-hpa.io/v2","kind":"HorizontalPodAutoscaler",
"metadata":{"name":"web","namespace":"default"},
"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5,
"metrics":[{"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"10"},
"fallback":{"failureDurationSeconds":180,"replicas":3}}}]}}`

const fallbackHPAMaxSix = `{"apiVersion":"autoscaling.kube-hpa.io/v2","kind":"HorizontalPodAutoscaler",
"metadata":{"name":"web","namespace":"default"},
"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":6,
"metrics":[{"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"10"},
"fallback":{"failureDurationSeconds":180,"replicas":3}}}]}}`

const minAboveMax = `{"apiVersion":"autoscaling.kube-hpa.io/v2","kind":"HorizontalPodAutoscaler",
"metadata":{"name":"web","namespace":"default"},
"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":7,"maxReplicas":5}}`

func TestReview(t *testing.T) {
	cases := []struct {
		name        string
		fallbackOn  bool
		op          admissionv1.Operation
		subResource string
		object, old string
		wantAllowed bool
		wantMessage string
	}{
		{name: "a valid create is allowed", op: admissionv1.Create, object: validHPA, wantAllowed: true},
		{name: "an invalid create is refused with the field path", op: admissionv1.Create, object: minAboveMax,
			wantMessage: "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"},
		{name: "a fallback is refused while its gate is off", op: admissionv1.Create, object: fallbackHPA,
			wantMessage: "spec.metrics[0].external.fallback: Forbidden: requires the HPAExternalMetricFallback feature gate"},
		{name: "a fallback is allowed with its gate on", fallbackOn: true, op: admissionv1.Create, object: fallbackHPA, wantAllowed: true},
		{name: "an update keeping a fallback stays allowed after the gate is turned off", op: admissionv1.Update,
			object: fallbackHPAMaxSix, old: fallbackHPA, wantAllowed: true},
		{name: "an update adding a fallback is refused while its gate is off", op: admissionv1.Update,
			object: fallbackHPA, old: validHPA, wantMessage: "requires the HPAExternalMetricFallback feature gate"},
		{name: "status writes are the controller's and not validated", op: admissionv1.Update, subResource: "status",
			object: minAboveMax, old: minAboveMax, wantAllowed: true},
		{name: "deletes are allowed", op: admissionv1.Delete, wantAllowed: true},
		{name: "an undecodable object is refused", op: admissionv1.Create, object: `{"spec":{"maxReplicas":"five"}}`,
			wantMessage: "decoding the HorizontalPodAutoscaler"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gates := features.NewFeatureGate()
			featuregatetesting.SetFeatureGateDuringTest(t, gates, features.HPAExternalMetricFallback, tc.fallbackOn)
			req := &admissionv1.AdmissionRequest{UID: "uid", Name: "web", Operation: tc.op, SubResource: tc.subResource,
				Object: runtime.RawExtension{Raw: []byte(tc.object)}, OldObject: runtime.RawExtension{Raw: []byte(tc.old)}}
			resp := NewHandler(gates).Review(req)
			if resp.Allowed != tc.wantAllowed {
				t.Fatalf("allowed = %v, want %v (result %+v)", resp.Allowed, tc.wantAllowed, resp.Result)
			}
			if tc.wantMessage != "" && (resp.Result == nil || !strings.Contains(resp.Result.Message, tc.wantMessage)) {
				t.Errorf("message = %+v, want it to contain %q", resp.Result, tc.wantMessage)
			}
		})
	}
}
