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
	"errors"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// fakeAutoscalers answers from a fixed list of autoscalers per target.
type fakeAutoscalers struct {
	on  map[string][]Autoscaler
	err error
	// asked records the namespaces looked in.
	asked []string
}

func (f *fakeAutoscalers) On(_ context.Context, namespace string, target autoscalingv2.CrossVersionObjectReference) ([]Autoscaler, error) {
	f.asked = append(f.asked, namespace)
	return f.on[namespace+"/"+target.Kind+"/"+target.Name], f.err
}

const replacingHPA = `{"apiVersion":"autoscaling.kube-hpa.io/v2","kind":"HorizontalPodAutoscaler",
"metadata":{"name":"web","namespace":"default","annotations":{"autoscaling.kube-hpa.io/replaces":"web"}},
"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5,
"metrics":[{"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"10"}}}]}}`

const apiHPA = `{"apiVersion":"autoscaling.kube-hpa.io/v2","kind":"HorizontalPodAutoscaler",
"metadata":{"name":"web","namespace":"default"},
"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"api"},"maxReplicas":5,
"metrics":[{"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"10"}}}]}}`

func TestReviewRefusesASecondAutoscalerOnATarget(t *testing.T) {
	native := Autoscaler{Kind: NativeKind, Name: "web"}
	keda := Autoscaler{Kind: NativeKind, Name: "keda-hpa-web"}
	extended := func(name string) Autoscaler { return Autoscaler{Kind: "autoscaling.kube-hpa.io/v2", Name: name} }
	cases := []struct {
		name        string
		op          admissionv1.Operation
		object, old string
		on          []Autoscaler
		err         error
		wantAllowed bool
		wantMessage string
	}{
		{name: "a create on a target without autoscaler is allowed", op: admissionv1.Create, object: validHPA, wantAllowed: true},
		{name: "a create on a target of a native HPA is refused naming it", op: admissionv1.Create, object: validHPA,
			on: []Autoscaler{native}, wantMessage: "spec.scaleTargetRef: Forbidden: Deployment web is already autoscaled by autoscaling/v2 web"},
		{name: "a create on a target of a KEDA ScaledObject's HPA is refused naming it", op: admissionv1.Create, object: validHPA,
			on: []Autoscaler{keda}, wantMessage: "autoscaling/v2 keda-hpa-web"},
		{name: "a create on a target of another kube-hpa HPA is refused naming it", op: admissionv1.Create, object: validHPA,
			on: []Autoscaler{extended("other")}, wantMessage: "autoscaling.kube-hpa.io/v2 other"},
		{name: "the HPA itself is not another autoscaler", op: admissionv1.Create, object: validHPA,
			on: []Autoscaler{extended("web")}, wantAllowed: true},
		{name: "a create taking over from the native HPA it names is allowed", op: admissionv1.Create, object: replacingHPA,
			on: []Autoscaler{native}, wantAllowed: true},
		{name: "a create naming one native HPA is refused for another", op: admissionv1.Create, object: replacingHPA,
			on: []Autoscaler{native, keda}, wantMessage: "autoscaling/v2 keda-hpa-web"},
		{name: "an update keeping the target is not checked", op: admissionv1.Update, object: validHPA, old: validHPA,
			on: []Autoscaler{native}, wantAllowed: true},
		{name: "an update moving to a target of another autoscaler is refused", op: admissionv1.Update, object: validHPA, old: apiHPA,
			on: []Autoscaler{native}, wantMessage: "already autoscaled by autoscaling/v2 web"},
		{name: "a failed look-up refuses rather than risk two autoscalers", op: admissionv1.Create, object: validHPA,
			err: errors.New("connection refused"), wantMessage: "listing the autoscalers of the target: connection refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			autoscalers := &fakeAutoscalers{on: map[string][]Autoscaler{"default/Deployment/web": tc.on}, err: tc.err}
			req := &admissionv1.AdmissionRequest{UID: "uid", Name: "web", Namespace: "default", Operation: tc.op,
				Object: runtime.RawExtension{Raw: []byte(tc.object)}, OldObject: runtime.RawExtension{Raw: []byte(tc.old)}}
			resp := NewHandler(features.NewFeatureGate()).WithAutoscalers(autoscalers).Review(req)
			if resp.Allowed != tc.wantAllowed {
				t.Fatalf("allowed = %v, want %v (result %+v)", resp.Allowed, tc.wantAllowed, resp.Result)
			}
			if tc.wantMessage != "" && (resp.Result == nil || !strings.Contains(resp.Result.Message, tc.wantMessage)) {
				t.Errorf("message = %+v, want it to contain %q", resp.Result, tc.wantMessage)
			}
		})
	}
}

func TestSameTargetIgnoresTheVersion(t *testing.T) {
	ref := func(apiVersion, kind, name string) autoscalingv2.CrossVersionObjectReference {
		return autoscalingv2.CrossVersionObjectReference{APIVersion: apiVersion, Kind: kind, Name: name}
	}
	cases := []struct {
		name string
		a, b autoscalingv2.CrossVersionObjectReference
		want bool
	}{
		{name: "two versions of a group name one object", a: ref("apps/v1", "Deployment", "web"), b: ref("apps/v1beta2", "Deployment", "web"), want: true},
		{name: "two groups name two objects", a: ref("apps/v1", "Deployment", "web"), b: ref("argoproj.io/v1alpha1", "Deployment", "web")},
		{name: "two kinds name two objects", a: ref("apps/v1", "Deployment", "web"), b: ref("apps/v1", "StatefulSet", "web")},
		{name: "two names name two objects", a: ref("apps/v1", "Deployment", "web"), b: ref("apps/v1", "Deployment", "api")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SameTarget(tc.a, tc.b); got != tc.want {
				t.Errorf("SameTarget = %v, want %v", got, tc.want)
			}
		})
	}
}
