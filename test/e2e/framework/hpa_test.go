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

package framework

import (
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func TestNativeManifest(t *testing.T) {
	withStrategy := MultiMetricHPA("worker", "worker", 1, 5,
		AverageValueExternalMetric("queue", "10", Fallback(3, 180*time.Second)))
	withStrategy.Spec.Metrics[0].External.Fallback.Strategy = v2.FallbackStrategyUseMax
	withStatus := ExternalHPA("worker", "worker", "queue", autoscalingv2.ValueMetricType, "5", 1, 3)
	withStatus.Status.DesiredReplicas = 2

	tests := []struct {
		name string
		hpa  *v2.HorizontalPodAutoscaler
		// want maps a field path (dot-separated) to its value; a nil value
		// means the field must be absent.
		want map[string]any
	}{
		{"a fallback is kept, with no strategy when unset",
			MultiMetricHPA("worker", "worker", 1, 5, AverageValueExternalMetric("queue", "10", Fallback(3, 180*time.Second))),
			map[string]any{
				"apiVersion": "autoscaling/v2",
				"kind":       "HorizontalPodAutoscaler",
				"spec.metrics.0.external.fallback.replicas":               int64(3),
				"spec.metrics.0.external.fallback.failureDurationSeconds": int64(180),
				"spec.metrics.0.external.fallback.strategy":               nil,
				"spec.metrics.0.external.target.averageValue":             "10",
			}},
		{"a strategy that is set stays, for the API server to refuse", withStrategy,
			map[string]any{"spec.metrics.0.external.fallback.strategy": "UseMax"}},
		{"no status nor creationTimestamp, as a user writes it", withStatus,
			map[string]any{"status": nil, "metadata.creationTimestamp": nil, "metadata.name": "worker",
				"spec.metrics.0.external.fallback": nil, "spec.minReplicas": int64(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := NativeManifest(tc.hpa)
			if err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := yaml.Unmarshal(data, &obj); err != nil {
				t.Fatalf("%v:\n%s", err, data)
			}
			for path, want := range tc.want {
				got, found := lookup(obj, strings.Split(path, "."))
				switch {
				case want == nil && found:
					t.Errorf("%s is %v, want it absent:\n%s", path, got, data)
				case want != nil && !found:
					t.Errorf("%s is absent, want %v:\n%s", path, want, data)
				case want != nil && normalize(got) != normalize(want):
					t.Errorf("%s is %v, want %v:\n%s", path, got, want, data)
				}
			}
		})
	}
}

// lookup follows path through maps and, for numeric elements, lists.
func lookup(obj any, path []string) (any, bool) {
	for _, p := range path {
		switch o := obj.(type) {
		case map[string]any:
			v, ok := o[p]
			if !ok {
				return nil, false
			}
			obj = v
		case []any:
			i := int(p[0] - '0')
			if len(p) != 1 || i < 0 || i >= len(o) {
				return nil, false
			}
			obj = o[i]
		default:
			return nil, false
		}
	}
	return obj, true
}

// normalize compares numbers read from YAML (float64) with ints.
func normalize(v any) any {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return v
}

func TestHPARoundTripKeepsTheExtensionOfANativeObject(t *testing.T) {
	// What an API server of make intree returns for a native HPA in
	// fallback: the extended type must read every KEP-5679 field of it.
	native := `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: worker, namespace: ns}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  maxReplicas: 5
  metrics:
  - type: External
    external:
      metric: {name: queue}
      target: {type: AverageValue, averageValue: "10"}
      fallback: {failureDurationSeconds: 180, replicas: 3}
status:
  currentReplicas: 3
  desiredReplicas: 3
  currentMetrics:
  - type: External
    external:
      metric: {name: queue}
      current: {}
      fallbackStatus: Fallback
      firstFailureTime: "2026-01-01T00:00:00Z"
`
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(native), &obj.Object); err != nil {
		t.Fatal(err)
	}
	hpa, err := hpaFromUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	if fb := hpa.Spec.Metrics[0].External.Fallback; fb == nil || fb.Replicas != 3 || *fb.FailureDurationSeconds != 180 {
		t.Errorf("fallback read as %+v", fb)
	}
	st := ExternalMetricStatus(hpa, "queue")
	if st == nil || st.FallbackStatus != v2.FallbackStatusFallback || st.FirstFailureTime == nil {
		t.Errorf("status read as %+v", st)
	}
	back, err := unstructuredHPA(Native, hpa)
	if err != nil {
		t.Fatal(err)
	}
	if back.GetAPIVersion() != "autoscaling/v2" {
		t.Errorf("apiVersion %q written back", back.GetAPIVersion())
	}
	if r, _, _ := unstructured.NestedSlice(back.Object, "spec", "metrics"); len(r) != 1 {
		t.Fatalf("metrics written back: %v", r)
	}
}

func TestModes(t *testing.T) {
	tests := []struct {
		env      string
		want     Mode
		kind     HPAKind
		extended bool
		wantErr  bool
	}{
		{"", ModeCRD, Extended, true, false},
		{"crd", ModeCRD, Extended, true, false},
		{"intree", ModeInTree, Native, false, false},
		{"in-tree", "", "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(EnvMode, tc.env)
			mode, err := ModeFromEnv()
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want an error: %t", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if mode != tc.want || mode.KEPHPAKind() != tc.kind {
				t.Errorf("mode %q with KEP kind %q, want %q and %q", mode, mode.KEPHPAKind(), tc.want, tc.kind)
			}
			if !mode.Serves(Native) || mode.Serves(Extended) != tc.extended {
				t.Errorf("mode %q serves native %t, extended %t", mode, mode.Serves(Native), mode.Serves(Extended))
			}
		})
	}
}
