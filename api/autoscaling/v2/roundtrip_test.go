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
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

const nativeAPIVersion = "autoscaling/v2"

// manifestFiles lists the YAML and JSON manifests under testdata/dir.
func manifestFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.yaml", "*.json"} {
		m, err := filepath.Glob(filepath.Join("testdata", dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no manifests in testdata/%s", dir)
	}
	return files
}

// readManifest returns a YAML or JSON manifest as JSON, refusing duplicate
// keys.
func readManifest(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// strictDecode decodes JSON into a typed object and fails on any unknown,
// duplicate or wrongly-cased field, so that a field the type lacks cannot
// be dropped silently.
func strictDecode(t *testing.T, data []byte, into any) {
	t.Helper()
	strictErrs, err := sigsjson.UnmarshalStrict(data, into)
	if err != nil {
		t.Fatalf("decoding into %T: %v", into, err)
	}
	if len(strictErrs) > 0 {
		t.Fatalf("strict decoding into %T: %v", into, strictErrs)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return out
}

// normalized decodes JSON into generic maps, so that two documents compare
// equal whatever their key order and spacing.
func normalized(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return out
}

func assertSameJSON(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s differs\n got: %s\nwant: %s", what, g, w)
	}
}

// assertSubset fails unless every value of want is in got at the same path.
// Scalars compare by their printed form, since a manifest may write a
// quantity as a bare number that the type encodes as a string.
func assertSubset(t *testing.T, path string, got, want any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: got %T, want an object", path, got)
			return
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s.%s was lost", path, k)
				continue
			}
			assertSubset(t, path+"."+k, gv, wv)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %v, want %v", path, got, want)
			return
		}
		for i := range w {
			assertSubset(t, fmt.Sprintf("%s[%d]", path, i), g[i], w[i])
		}
	case nil:
		if got != nil && !isEmpty(got) {
			t.Errorf("%s: got %v, want null", path, got)
		}
	default:
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// withAPIVersion returns the JSON document with its top-level apiVersion
// replaced, and nothing else changed.
func withAPIVersion(t *testing.T, doc []byte, apiVersion string) []byte {
	t.Helper()
	m := normalized(t, doc)
	m["apiVersion"] = apiVersion
	return mustMarshal(t, m)
}

// TestNativeManifestsDecodeAsExtended checks that the extended JSON is a
// superset of native autoscaling/v2: a real-world native manifest with only
// its apiVersion changed decodes strictly into the extended type, and
// encodes back to exactly what the native type encodes.
func TestNativeManifestsDecodeAsExtended(t *testing.T) {
	for _, path := range manifestFiles(t, "native") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw := readManifest(t, path)

			var native autoscalingv2.HorizontalPodAutoscaler
			strictDecode(t, raw, &native)
			if native.APIVersion != nativeAPIVersion || native.Kind != "HorizontalPodAutoscaler" {
				t.Fatalf("testdata is not a native HPA: %v", native.TypeMeta)
			}

			extRaw := withAPIVersion(t, raw, SchemeGroupVersion.String())
			var ext HorizontalPodAutoscaler
			strictDecode(t, extRaw, &ext)
			extJSON := normalized(t, mustMarshal(t, &ext))

			want := normalized(t, mustMarshal(t, &native))
			want["apiVersion"] = SchemeGroupVersion.String()
			assertSameJSON(t, "extended encoding", extJSON, want)
			assertSubset(t, "", extJSON, normalized(t, extRaw))

			// A native object decoded the same way converts to the same
			// extended object, and back.
			if got := FromNative(&native); !equality.Semantic.DeepEqual(got, &ext) {
				t.Errorf("FromNative differs from decoding as extended:\n got: %+v\nwant: %+v", got, &ext)
			}
			if got := ToNative(&ext); !equality.Semantic.DeepEqual(got, &native) {
				t.Errorf("ToNative differs from decoding as native:\n got: %+v\nwant: %+v", got, &native)
			}
		})
	}
}

// TestExtendedManifestsRoundTrip checks that manifests using the extension
// decode strictly, encode back without loss, and lose exactly the extension
// fields when converted to native.
func TestExtendedManifestsRoundTrip(t *testing.T) {
	for _, path := range manifestFiles(t, "extended") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw := readManifest(t, path)
			var ext HorizontalPodAutoscaler
			strictDecode(t, raw, &ext)
			if ext.APIVersion != SchemeGroupVersion.String() {
				t.Fatalf("testdata is not an extended HPA: %v", ext.TypeMeta)
			}
			if !usesExtension(&ext) {
				t.Fatalf("testdata does not use the extension")
			}
			extJSON := normalized(t, mustMarshal(t, &ext))
			assertSubset(t, "", extJSON, normalized(t, raw))

			// Decoding the encoding gives the same object.
			var again HorizontalPodAutoscaler
			strictDecode(t, mustMarshal(t, &ext), &again)
			if !equality.Semantic.DeepEqual(&again, &ext) {
				t.Errorf("decode(encode(x)) != x:\n got: %+v\nwant: %+v", &again, &ext)
			}

			// ToNative keeps everything but the extension's fields.
			nativeJSON := normalized(t, mustMarshal(t, ToNative(&ext)))
			want := stripExtensionJSON(t, extJSON)
			want["apiVersion"] = nativeAPIVersion
			assertSameJSON(t, "native encoding", nativeJSON, want)

			// And the result is a valid native document.
			var native autoscalingv2.HorizontalPodAutoscaler
			strictDecode(t, mustMarshal(t, ToNative(&ext)), &native)
		})
	}
}

// stripExtensionJSON removes, from an encoded extended HPA, the fields that
// only the extension has.
func stripExtensionJSON(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	out := normalized(t, mustMarshal(t, doc))
	strip := func(section, list string, keys ...string) {
		sec, _ := out[section].(map[string]any)
		items, _ := sec[list].([]any)
		for _, item := range items {
			ext, _ := item.(map[string]any)["external"].(map[string]any)
			for _, k := range keys {
				delete(ext, k)
			}
		}
	}
	strip("spec", "metrics", "fallback")
	if behavior, ok := out["spec"].(map[string]any)["behavior"].(map[string]any); ok {
		delete(behavior, "syncPeriodSeconds")
	}
	if status, ok := out["status"].(map[string]any); ok {
		delete(status, "lastScaleDecision")
	}
	strip("status", "currentMetrics", "fallbackStatus", "firstFailureTime")
	return out
}

func usesExtension(hpa *HorizontalPodAutoscaler) bool {
	if hpa.Spec.Behavior != nil && hpa.Spec.Behavior.SyncPeriodSeconds != nil || hpa.Status.LastScaleDecision != nil {
		return true
	}
	for _, m := range hpa.Spec.Metrics {
		if m.External != nil && m.External.Fallback != nil {
			return true
		}
	}
	for _, m := range hpa.Status.CurrentMetrics {
		if m.External != nil && (m.External.FallbackStatus != "" || m.External.FirstFailureTime != nil) {
			return true
		}
	}
	return false
}

// TestExtendedJSONFieldsAreASupersetOfNative walks the native and extended
// types side by side and checks that every JSON field of native
// autoscaling/v2 exists in the extended type under the same name, with the
// same omitempty behavior, and that the extended type adds only the
// extension's fields. It fails when k8s.io/api gains a field the extended
// type does not carry.
func TestExtendedJSONFieldsAreASupersetOfNative(t *testing.T) {
	extra := map[string]bool{
		"HorizontalPodAutoscaler.spec.syncPeriodSeconds":                            true,
		"HorizontalPodAutoscaler.spec.behavior.syncPeriodSeconds":                   true,
		"HorizontalPodAutoscaler.status.lastScaleDecision":                          true,
		"HorizontalPodAutoscaler.spec.metrics[].external.fallback":                  true,
		"HorizontalPodAutoscaler.status.currentMetrics[].external.fallbackStatus":   true,
		"HorizontalPodAutoscaler.status.currentMetrics[].external.firstFailureTime": true,
		"HorizontalPodAutoscaler.spec.metrics[].external.metric.source":             true,
		"HorizontalPodAutoscaler.spec.metrics[].object.metric.source":               true,
		"HorizontalPodAutoscaler.spec.metrics[].pods.metric.source":                 true,
		"HorizontalPodAutoscaler.status.currentMetrics[].external.metric.source":    true,
		"HorizontalPodAutoscaler.status.currentMetrics[].object.metric.source":      true,
		"HorizontalPodAutoscaler.status.currentMetrics[].pods.metric.source":        true,
	}
	var seenExtra []string
	compareJSONFields(t, "HorizontalPodAutoscaler",
		reflect.TypeOf(autoscalingv2.HorizontalPodAutoscaler{}), reflect.TypeOf(HorizontalPodAutoscaler{}),
		extra, &seenExtra)
	sort.Strings(seenExtra)
	var want []string
	for k := range extra {
		want = append(want, k)
	}
	sort.Strings(want)
	if !reflect.DeepEqual(seenExtra, want) {
		t.Errorf("extension fields: got %q, want %q", seenExtra, want)
	}
}

type jsonField struct {
	typ  reflect.Type
	tags string
}

// jsonFields lists the JSON fields of a struct type, flattening inlined
// (embedded) structs.
func jsonFields(t reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" && f.Anonymous {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = jsonField{typ: f.Type, tags: opts}
	}
	return out
}

func compareJSONFields(t *testing.T, path string, native, ext reflect.Type, extra map[string]bool, seenExtra *[]string) {
	t.Helper()
	if native == ext {
		return
	}
	switch {
	case native.Kind() == reflect.Pointer && ext.Kind() == reflect.Pointer,
		native.Kind() == reflect.Slice && ext.Kind() == reflect.Slice:
		suffix := ""
		if native.Kind() == reflect.Slice {
			suffix = "[]"
		}
		compareJSONFields(t, path+suffix, native.Elem(), ext.Elem(), extra, seenExtra)
		return
	case native.Kind() == reflect.Struct && ext.Kind() == reflect.Struct:
	default:
		if native.Kind() != ext.Kind() || native.String() != ext.String() {
			t.Errorf("%s: native type %v, extended type %v", path, native, ext)
		}
		return
	}
	nf, ef := jsonFields(native), jsonFields(ext)
	for name, n := range nf {
		e, ok := ef[name]
		if !ok {
			t.Errorf("%s.%s: native field missing from the extended type", path, name)
			continue
		}
		if n.tags != e.tags {
			t.Errorf("%s.%s: json options %q, native has %q", path, name, e.tags, n.tags)
		}
		compareJSONFields(t, path+"."+name, n.typ, e.typ, extra, seenExtra)
	}
	for name := range ef {
		if _, ok := nf[name]; ok {
			continue
		}
		full := path + "." + name
		if !extra[full] {
			t.Errorf("%s: extended field unknown to native autoscaling/v2 and not an extension field", full)
		}
		*seenExtra = append(*seenExtra, full)
	}
}
