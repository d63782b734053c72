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

package v2

import (
	"os"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatalf("AddToScheme: %v", err)
	}
	return scheme
}

func TestAddToSchemeRegistersBothKinds(t *testing.T) {
	scheme := newScheme(t)
	gv := schema.GroupVersion{Group: "autoscaling.kube-hpa.io", Version: "v2"}
	if SchemeGroupVersion != gv {
		t.Fatalf("SchemeGroupVersion = %v, want %v", SchemeGroupVersion, gv)
	}
	for _, tc := range []struct {
		obj  runtime.Object
		kind string
	}{
		{&HorizontalPodAutoscaler{}, "HorizontalPodAutoscaler"},
		{&HorizontalPodAutoscalerList{}, "HorizontalPodAutoscalerList"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			gvks, _, err := scheme.ObjectKinds(tc.obj)
			if err != nil {
				t.Fatalf("ObjectKinds: %v", err)
			}
			if want := []schema.GroupVersionKind{gv.WithKind(tc.kind)}; !reflect.DeepEqual(gvks, want) {
				t.Errorf("ObjectKinds = %v, want %v", gvks, want)
			}
			obj, err := scheme.New(gv.WithKind(tc.kind))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if reflect.TypeOf(obj) != reflect.TypeOf(tc.obj) {
				t.Errorf("New returned %T, want %T", obj, tc.obj)
			}
		})
	}
	// AddToGroupVersion registers the meta kinds a client needs for lists
	// and watches in this group.
	for _, kind := range []string{"ListOptions", "WatchEvent", "DeleteOptions"} {
		if !scheme.Recognizes(gv.WithKind(kind)) {
			t.Errorf("%s is not registered in %v", kind, gv)
		}
	}
	if got, want := GroupVersionResource(), gv.WithResource("horizontalpodautoscalers"); got != want {
		t.Errorf("GroupVersionResource() = %v, want %v", got, want)
	}
}

// TestSchemeDecodesExtendedManifest decodes a manifest through a codec
// built from AddToScheme, as a client would.
func TestSchemeDecodesExtendedManifest(t *testing.T) {
	data, err := os.ReadFile("testdata/extended/fallback.yaml")
	if err != nil {
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(newScheme(t), serializer.EnableStrict)
	obj, gvk, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if *gvk != SchemeGroupVersion.WithKind("HorizontalPodAutoscaler") {
		t.Errorf("decoded kind %v", gvk)
	}
	hpa, ok := obj.(*HorizontalPodAutoscaler)
	if !ok {
		t.Fatalf("decoded %T", obj)
	}
	fb := hpa.Spec.Metrics[0].External.Fallback
	if fb == nil || fb.Replicas != 10 || fb.FailureDurationSeconds == nil || *fb.FailureDurationSeconds != 300 {
		t.Errorf("fallback not decoded: %+v", fb)
	}
	if got := hpa.Status.CurrentMetrics[0].External.FallbackStatus; got != FallbackStatusFallback {
		t.Errorf("fallbackStatus = %q", got)
	}
}

// TestAddToSchemeIsRepeatable checks that registering twice (two
// components sharing a scheme) neither fails nor changes the registration.
func TestAddToSchemeIsRepeatable(t *testing.T) {
	scheme := newScheme(t)
	if err := AddToScheme(scheme); err != nil {
		t.Fatalf("second AddToScheme: %v", err)
	}
	if gvks, _, err := scheme.ObjectKinds(&HorizontalPodAutoscaler{}); err != nil || len(gvks) != 1 {
		t.Errorf("ObjectKinds after two registrations = %v, %v", gvks, err)
	}
}
