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
	"encoding/json"
	"reflect"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"
)

// filler returns a randfill filler for HPA types: quantities get real
// values (their fields are unexported, so randfill cannot fill them),
// managed fields hold JSON, and TypeMeta is often one a real object
// carries.
func filler(f *randfill.Filler) *randfill.Filler {
	return f.NilChance(0.2).NumElements(0, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			formats := []resource.Format{resource.DecimalSI, resource.BinarySI, resource.DecimalExponent}
			*q = *resource.NewMilliQuantity(c.Int63n(1<<40)-1<<39, formats[c.Intn(len(formats))])
		},
		func(fields *metav1.FieldsV1, c randfill.Continue) {
			// Managed fields hold JSON; random bytes would not encode.
			fields.Raw = []byte(`{"f:spec":{"f:maxReplicas":{}}}`)
		},
		func(tm *metav1.TypeMeta, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*tm = metav1.TypeMeta{}
			case 1:
				*tm = metav1.TypeMeta{APIVersion: nativeAPIVersion, Kind: "HorizontalPodAutoscaler"}
			case 2:
				c.FillNoCustom(tm)
			}
		},
	)
}

// checkNativeRoundTrip asserts that native -> extended -> native is the
// identity, that the extended object encodes to the native JSON (apiVersion
// aside), and that neither conversion touches its input.
func checkNativeRoundTrip(t *testing.T, native *autoscalingv2.HorizontalPodAutoscaler) {
	t.Helper()
	before := native.DeepCopy()
	ext := FromNative(native)
	if !equality.Semantic.DeepEqual(native, before) {
		t.Fatalf("FromNative changed its input")
	}
	if !extensionUnset(ext) {
		t.Fatalf("FromNative set an extension field: %+v", ext)
	}
	extBefore := ext.DeepCopy()
	back := ToNative(ext)
	if !equality.Semantic.DeepEqual(ext, extBefore) {
		t.Fatalf("ToNative changed its input")
	}
	if !equality.Semantic.DeepEqual(back, native) {
		t.Fatalf("native -> extended -> native is lossy:\n got: %+v\nwant: %+v", back, native)
	}

	nativeJSON, err := json.Marshal(native)
	if err != nil {
		t.Fatal(err)
	}
	extJSON, err := json.Marshal(ext)
	if err != nil {
		t.Fatal(err)
	}
	want, got := normalized(t, nativeJSON), normalized(t, extJSON)
	if native.APIVersion == nativeAPIVersion && native.Kind == "HorizontalPodAutoscaler" {
		want["apiVersion"] = SchemeGroupVersion.String()
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("extended JSON differs from native JSON:\n got: %s\nwant: %s", extJSON, nativeJSON)
	}

	// The results share no memory with the inputs.
	scribble(reflect.ValueOf(ext))
	scribble(reflect.ValueOf(back))
	if !equality.Semantic.DeepEqual(native, before) {
		t.Fatalf("changing a converted object changed the native original")
	}
}

func extensionUnset(hpa *HorizontalPodAutoscaler) bool {
	if hpa.Spec.SyncPeriodSeconds != nil || hpa.Spec.Behavior != nil && hpa.Spec.Behavior.SyncPeriodSeconds != nil || hpa.Status.LastScaleDecision != nil {
		return false
	}
	for _, m := range hpa.Spec.Metrics {
		if m.External != nil && (m.External.Fallback != nil || m.External.Metric.Source != nil) ||
			m.Pods != nil && m.Pods.Metric.Source != nil || m.Object != nil && m.Object.Metric.Source != nil {
			return false
		}
	}
	for _, m := range hpa.Status.CurrentMetrics {
		if m.External != nil && (m.External.FallbackStatus != "" || m.External.FirstFailureTime != nil || m.External.Metric.Source != nil) ||
			m.Pods != nil && m.Pods.Metric.Source != nil || m.Object != nil && m.Object.Metric.Source != nil {
			return false
		}
	}
	return true
}

// scribble changes every exported scalar reachable from v, through
// pointers, slices, arrays and maps, so that any memory a converted object
// shares with its source shows up as a change in the source.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				scribble(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			scribble(v.Index(i))
		}
	case reflect.Map:
		if !v.IsNil() && v.CanSet() {
			v.SetMapIndex(reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem())
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + "~")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(v.Int() + 1)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.CanSet() {
			v.SetUint(v.Uint() + 1)
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	}
}

// TestNativeRoundTripRandomized fills native HPAs with random content and
// checks that converting them to the extended type and back loses nothing.
func TestNativeRoundTripRandomized(t *testing.T) {
	f := filler(randfill.NewWithSeed(20250302))
	for i := 0; i < 500; i++ {
		native := &autoscalingv2.HorizontalPodAutoscaler{}
		f.Fill(native)
		checkNativeRoundTrip(t, native)
	}
}

// FuzzNativeRoundTrip is TestNativeRoundTripRandomized driven by the fuzzer:
//
//	go test -fuzz FuzzNativeRoundTrip ./api/autoscaling/v2
func FuzzNativeRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("a native HPA with a few metrics and a status"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31})
	f.Add([]byte{0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8, 0xf7, 0xf6, 0xf5, 0xf4, 0xf3, 0xf2, 0xf1, 0xf0})
	f.Fuzz(func(t *testing.T, data []byte) {
		native := &autoscalingv2.HorizontalPodAutoscaler{}
		filler(randfill.NewFromGoFuzz(data)).Fill(native)
		checkNativeRoundTrip(t, native)
	})
}

// TestToNativeDropsOnlyTheExtension fills extended HPAs, extension fields
// included, and checks that ToNative keeps every other field: converting
// back gives the original with the extension fields cleared.
func TestToNativeDropsOnlyTheExtension(t *testing.T) {
	f := filler(randfill.NewWithSeed(5679))
	sawFallback, sawStatus := false, false
	for i := 0; i < 500; i++ {
		ext := &HorizontalPodAutoscaler{}
		f.Fill(ext)
		// Only native TypeMeta values are mapped by the filler; map them
		// to this package's for an extended object.
		if ext.APIVersion == nativeAPIVersion {
			ext.APIVersion = SchemeGroupVersion.String()
		}
		before := ext.DeepCopy()
		sawFallback = sawFallback || !extensionUnsetSpec(ext)
		sawStatus = sawStatus || !extensionUnsetStatus(ext)

		native := ToNative(ext)
		if !equality.Semantic.DeepEqual(ext, before) {
			t.Fatalf("ToNative changed its input")
		}
		want := clearExtension(ext.DeepCopy())
		if got := FromNative(native); !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("ToNative dropped more than the extension:\n got: %+v\nwant: %+v", got, want)
		}
		scribble(reflect.ValueOf(native))
		if !equality.Semantic.DeepEqual(ext, before) {
			t.Fatalf("changing ToNative's result changed the extended original")
		}
	}
	if !sawFallback || !sawStatus {
		t.Fatalf("the filler never set the extension fields (spec %t, status %t)", sawFallback, sawStatus)
	}
}

func extensionUnsetSpec(hpa *HorizontalPodAutoscaler) bool {
	return extensionUnset(&HorizontalPodAutoscaler{Spec: hpa.Spec})
}

func extensionUnsetStatus(hpa *HorizontalPodAutoscaler) bool {
	return extensionUnset(&HorizontalPodAutoscaler{Status: hpa.Status})
}

func clearExtension(hpa *HorizontalPodAutoscaler) *HorizontalPodAutoscaler {
	hpa.Spec.SyncPeriodSeconds = nil
	if hpa.Spec.Behavior != nil {
		hpa.Spec.Behavior.SyncPeriodSeconds = nil
	}
	hpa.Status.LastScaleDecision = nil
	for i := range hpa.Spec.Metrics {
		m := &hpa.Spec.Metrics[i]
		if m.External != nil {
			m.External.Fallback = nil
			m.External.Metric.Source = nil
		}
		if m.Pods != nil {
			m.Pods.Metric.Source = nil
		}
		if m.Object != nil {
			m.Object.Metric.Source = nil
		}
	}
	for i := range hpa.Status.CurrentMetrics {
		m := &hpa.Status.CurrentMetrics[i]
		if m.External != nil {
			m.External.FallbackStatus = ""
			m.External.FirstFailureTime = nil
			m.External.Metric.Source = nil
		}
		if m.Pods != nil {
			m.Pods.Metric.Source = nil
		}
		if m.Object != nil {
			m.Object.Metric.Source = nil
		}
	}
	return hpa
}

// TestConversionMapsTypeMeta pins how apiVersion and kind are converted: an
// object of one API becomes the same kind of the other API, so that neither
// API server is sent a body naming the other's group; an empty TypeMeta (as
// typed clients and informers return) stays empty.
func TestConversionMapsTypeMeta(t *testing.T) {
	nativeTM := metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"}
	extTM := metav1.TypeMeta{APIVersion: "autoscaling.kube-hpa.io/v2", Kind: "HorizontalPodAutoscaler"}
	cases := []struct {
		name       string
		in         metav1.TypeMeta
		fromNative metav1.TypeMeta
		toNative   metav1.TypeMeta
	}{
		{name: "empty stays empty", in: metav1.TypeMeta{}, fromNative: metav1.TypeMeta{}, toNative: metav1.TypeMeta{}},
		{name: "native becomes extended and back", in: nativeTM, fromNative: extTM, toNative: nativeTM},
		{name: "extended becomes native", in: extTM, fromNative: extTM, toNative: nativeTM},
		{
			name:       "another kind is kept",
			in:         metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "Scale"},
			fromNative: metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "Scale"},
			toNative:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "Scale"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := FromNative(&autoscalingv2.HorizontalPodAutoscaler{TypeMeta: tc.in}).TypeMeta; got != tc.fromNative {
				t.Errorf("FromNative: got %+v, want %+v", got, tc.fromNative)
			}
			if got := ToNative(&HorizontalPodAutoscaler{TypeMeta: tc.in}).TypeMeta; got != tc.toNative {
				t.Errorf("ToNative: got %+v, want %+v", got, tc.toNative)
			}
		})
	}
}
