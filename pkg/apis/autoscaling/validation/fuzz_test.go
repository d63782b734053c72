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

package validation

import (
	"math"
	"reflect"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// FuzzValidate builds HPAs from the fuzz input and runs every validator
// (the three spec validators and ValidateStatus) on them. It checks that validation never panics, is deterministic, leaves its
// input alone, reports only well-formed errors, and that every relaxation
// (an update, a stored object, more gates on) never refuses an object that
// the stricter check accepted.
//
//	go test -fuzz FuzzValidate ./pkg/apis/autoscaling/validation
func FuzzValidate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte("valid-looking spec with an external metric and a fallback"))
	f.Add([]byte{7, 1, 0, 0, 0, 3, 2, 4, 1, 1, 0, 0, 2, 2, 3, 1, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32})
	f.Add([]byte(strings.Repeat("\x03\x01\x04\x01\x05\x09\x02\x06", 16)))
	f.Add([]byte(strings.Repeat("\x00\x01", 64)))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{data: data}
		gateBits := r.next()
		newHPA := r.hpa()
		var oldHPA *v2.HorizontalPodAutoscaler
		if r.bool() {
			// A small edit of the new object, the common shape of an
			// update.
			oldHPA = newHPA.DeepCopy()
			r.mutate(oldHPA)
		} else {
			oldHPA = r.hpa()
		}
		newCopy, oldCopy := newHPA.DeepCopy(), oldHPA.DeepCopy()

		gate := fuzzGate(t, gateBits)
		create := ValidateHorizontalPodAutoscaler(newHPA, gate)
		upd := ValidateHorizontalPodAutoscalerUpdate(newHPA, oldHPA, gate)
		st := ValidateStored(newHPA, gate)

		if !reflect.DeepEqual(newHPA, newCopy) || !reflect.DeepEqual(oldHPA, oldCopy) {
			t.Fatalf("validation changed its input")
		}
		for name, pair := range map[string][2]field.ErrorList{
			"create": {create, ValidateHorizontalPodAutoscaler(newHPA, gate)},
			"update": {upd, ValidateHorizontalPodAutoscalerUpdate(newHPA, oldHPA, gate)},
			"stored": {st, ValidateStored(newHPA, gate)},
		} {
			if a, b := errorStrings(pair[0]), errorStrings(pair[1]); !reflect.DeepEqual(a, b) {
				t.Fatalf("%s validation is not deterministic:\n%q\n%q", name, a, b)
			}
			checkWellFormed(t, name, pair[0])
		}
		if st2 := ValidateHorizontalPodAutoscalerUpdate(newHPA, newHPA, gate); !reflect.DeepEqual(errorStrings(st), errorStrings(st2)) {
			t.Fatalf("stored validation differs from an update to itself:\n%q\n%q", errorStrings(st), errorStrings(st2))
		}
		statusErrs := ValidateStatus(newHPA)
		if a, b := errorStrings(statusErrs), errorStrings(ValidateStatus(newHPA)); !reflect.DeepEqual(a, b) {
			t.Fatalf("status validation is not deterministic:\n%q\n%q", a, b)
		}
		for _, e := range statusErrs {
			if !knownErrorTypes[e.Type] || !strings.HasPrefix(e.Field, "status.") {
				t.Fatalf("status: unexpected error %v", e)
			}
		}
		// Spec validation does not look at the status.
		noStatus := newHPA.DeepCopy()
		noStatus.Status = v2.HorizontalPodAutoscalerStatus{}
		if got := ValidateHorizontalPodAutoscaler(noStatus, gate); !reflect.DeepEqual(errorStrings(got), errorStrings(create)) {
			t.Fatalf("spec validation depends on the status:\n%q\n%q", errorStrings(got), errorStrings(create))
		}
		if !reflect.DeepEqual(newHPA, newCopy) {
			t.Fatalf("status validation changed its input")
		}
		if len(create) == 0 && len(upd) != 0 {
			t.Fatalf("valid on create but refused on update: %v", upd)
		}
		if len(create) == 0 && len(st) != 0 {
			t.Fatalf("valid on create but refused when stored: %v", st)
		}
		if len(create) == 0 {
			// Turning a gate on only ever allows more.
			all := fuzzGate(t, 0xff)
			if errs := ValidateHorizontalPodAutoscaler(newHPA, all); len(errs) != 0 {
				t.Fatalf("valid with gates %08b but refused with every gate on: %v", gateBits, errs)
			}
		}
	})
}

func fuzzGate(t *testing.T, bits byte) featuregate.FeatureGate {
	t.Helper()
	gate := features.NewFeatureGate()
	// A fresh gate per input needs no restoring, so SetFromMap is enough
	// and keeps each iteration cheap.
	err := gate.SetFromMap(map[string]bool{
		string(features.HPAExternalMetricFallback): bits&1 != 0,
		string(features.HPAScaleToZero):            bits&2 != 0,
		string(features.HPAConfigurableSyncPeriod): bits&8 != 0,
	})
	if err != nil {
		t.Fatalf("setting gates: %v", err)
	}
	return gate
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

var knownErrorTypes = map[field.ErrorType]bool{
	field.ErrorTypeInvalid:      true,
	field.ErrorTypeRequired:     true,
	field.ErrorTypeForbidden:    true,
	field.ErrorTypeNotSupported: true,
}

func checkWellFormed(t *testing.T, op string, errs field.ErrorList) {
	t.Helper()
	for _, e := range errs {
		if !knownErrorTypes[e.Type] {
			t.Fatalf("%s: unexpected error type %q in %v", op, e.Type, e)
		}
		if !strings.HasPrefix(e.Field, "spec.") {
			t.Fatalf("%s: error outside spec: %v", op, e)
		}
		if e.Detail == "" && e.Type != field.ErrorTypeRequired {
			t.Fatalf("%s: error without detail: %v", op, e)
		}
	}
}

// fuzzReader turns fuzz bytes into choices; past the end it reads zeros,
// so every input decodes to some object.
type fuzzReader struct {
	data []byte
	pos  int
}

func (r *fuzzReader) next() byte {
	if r.pos >= len(r.data) {
		return 0
	}
	b := r.data[r.pos]
	r.pos++
	return b
}

func (r *fuzzReader) bool() bool { return r.next()&1 == 1 }

// sometimes is true for about one byte value in three.
func (r *fuzzReader) sometimes() bool { return r.next()%3 == 1 }

func pick[T any](r *fuzzReader, options ...T) T {
	return options[int(r.next())%len(options)]
}

var (
	fuzzKinds       = []string{"Deployment", "ReplicationController", "StatefulSet", "", "..", "a/b", "x%y"}
	fuzzNames       = []string{"web", "a", "", ".", "a/b", "q%", strings.Repeat("n", 300)}
	fuzzAPIVersions = []string{"apps/v1", "v1", "", "apps/v1/v2", "example.com/v1alpha1", "/v1", "apps/"}
	fuzzInt32s      = []int32{1, 0, -1, 2, 3, 5, 10, 15, 180, 1800, 1801, 3600, 3601, math.MaxInt32, math.MinInt32}
	fuzzDurations   = []int64{180, 0, -1, 179, 181, 3600, 86400, 86401, 10000000000, math.MaxInt64, math.MinInt64}
	fuzzQuantities  = []string{"1", "0", "-1", "500m", "1Gi", "1e3", "-0.001", "0.05", "9223372036854775807"}
	fuzzMetricNames = []string{"rps", "", "..", "a/b", "q%", "http.requests:rate5m"}
	fuzzResources   = []corev1.ResourceName{"cpu", "memory", "", "pods", "hugepages-2Mi", "example.com/gpu",
		"requests.example.com/gpu", "kubernetes.io/x", "InvalidResource", "a/b/c", "requests.cpu", "-bad-"}
	fuzzContainers  = []string{"app", "", "App", "a.b", "sidecar-1"}
	fuzzSourceTypes = []autoscalingv2.MetricSourceType{"Resource", "Pods", "Object", "External", "ContainerResource", "", "Bogus"}
	fuzzTargetTypes = []autoscalingv2.MetricTargetType{"Utilization", "Value", "AverageValue", "", "Percent"}
	fuzzSelects     = []autoscalingv2.ScalingPolicySelect{"Max", "Min", "Disabled", "", "max"}
	fuzzPolicyTypes = []autoscalingv2.HPAScalingPolicyType{"Pods", "Percent", "", "Seconds"}
)

func (r *fuzzReader) int32Ptr() *int32 {
	if r.sometimes() {
		return nil
	}
	v := pick(r, fuzzInt32s...)
	return &v
}

func (r *fuzzReader) quantity() *resource.Quantity {
	if r.sometimes() {
		return nil
	}
	q := resource.MustParse(pick(r, fuzzQuantities...))
	return &q
}

func (r *fuzzReader) ref() autoscalingv2.CrossVersionObjectReference {
	return autoscalingv2.CrossVersionObjectReference{
		Kind:       pick(r, fuzzKinds...),
		Name:       pick(r, fuzzNames...),
		APIVersion: pick(r, fuzzAPIVersions...),
	}
}

func (r *fuzzReader) target() autoscalingv2.MetricTarget {
	return autoscalingv2.MetricTarget{
		Type:               pick(r, fuzzTargetTypes...),
		Value:              r.quantity(),
		AverageValue:       r.quantity(),
		AverageUtilization: r.int32Ptr(),
	}
}

func (r *fuzzReader) identifier() v2.MetricIdentifier {
	id := v2.MetricIdentifier{Name: pick(r, fuzzMetricNames...)}
	if r.sometimes() {
		id.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "jobs"}}
	}
	return id
}

func (r *fuzzReader) metric() v2.MetricSpec {
	m := v2.MetricSpec{Type: pick(r, fuzzSourceTypes...)}
	// The source named by the type is present more often than the others.
	own := func(t autoscalingv2.MetricSourceType) bool {
		if m.Type == t {
			return !r.sometimes()
		}
		return r.sometimes() && r.sometimes()
	}
	if own(autoscalingv2.ObjectMetricSourceType) {
		m.Object = &v2.ObjectMetricSource{DescribedObject: r.ref(), Metric: r.identifier(), Target: r.target()}
	}
	if own(autoscalingv2.PodsMetricSourceType) {
		m.Pods = &v2.PodsMetricSource{Metric: r.identifier(), Target: r.target()}
	}
	if own(autoscalingv2.ResourceMetricSourceType) {
		m.Resource = &autoscalingv2.ResourceMetricSource{Name: pick(r, fuzzResources...), Target: r.target()}
	}
	if own(autoscalingv2.ContainerResourceMetricSourceType) {
		m.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{
			Name: pick(r, fuzzResources...), Container: pick(r, fuzzContainers...), Target: r.target(),
		}
	}
	if own(autoscalingv2.ExternalMetricSourceType) {
		m.External = &v2.ExternalMetricSource{Metric: r.identifier(), Target: r.target()}
		if r.bool() {
			fb := &v2.ExternalMetricFallback{Replicas: pick(r, fuzzInt32s...)}
			if !r.sometimes() {
				d := pick(r, fuzzDurations...)
				fb.FailureDurationSeconds = &d
			}
			m.External.Fallback = fb
		}
	}
	return m
}

func (r *fuzzReader) scalingRules() *autoscalingv2.HPAScalingRules {
	if r.sometimes() {
		return nil
	}
	rules := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: r.int32Ptr()}
	if r.bool() {
		p := pick(r, fuzzSelects...)
		rules.SelectPolicy = &p
	}
	switch n := int(r.next() % 4); n {
	case 0: // policies left unset: defaulted
	default:
		rules.Policies = make([]autoscalingv2.HPAScalingPolicy, n-1)
		for i := range rules.Policies {
			rules.Policies[i] = autoscalingv2.HPAScalingPolicy{
				Type: pick(r, fuzzPolicyTypes...), Value: pick(r, fuzzInt32s...), PeriodSeconds: pick(r, fuzzInt32s...),
			}
		}
	}
	if r.sometimes() {
		rules.Tolerance = r.quantity()
	}
	return rules
}

func (r *fuzzReader) hpa() *v2.HorizontalPodAutoscaler {
	h := &v2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "fuzz", Namespace: "default"},
		Spec: v2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: r.ref(),
			MinReplicas:    r.int32Ptr(),
			MaxReplicas:    pick(r, fuzzInt32s...),
		},
	}
	n := int(r.next() % 5)
	if n > 0 || r.bool() {
		h.Spec.Metrics = make([]v2.MetricSpec, n)
	}
	for i := range h.Spec.Metrics {
		h.Spec.Metrics[i] = r.metric()
	}
	if r.bool() {
		h.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{ScaleUp: r.scalingRules(), ScaleDown: r.scalingRules(), SyncPeriodSeconds: r.int32Ptr()}
	}
	if r.sometimes() {
		h.Status = v2.HorizontalPodAutoscalerStatus{
			CurrentReplicas: pick(r, fuzzInt32s...),
			DesiredReplicas: pick(r, fuzzInt32s...),
			CurrentMetrics: []v2.MetricStatus{{
				Type: autoscalingv2.ExternalMetricSourceType,
				External: &v2.ExternalMetricStatus{
					Metric:         r.identifier(),
					FallbackStatus: pick[v2.FallbackStatus](r, "", v2.FallbackStatusNormal, v2.FallbackStatusFallback, "Bogus"),
				},
			}},
		}
	}
	return h
}

// mutate makes one small edit to h.
func (r *fuzzReader) mutate(h *v2.HorizontalPodAutoscaler) {
	switch r.next() % 7 {
	case 0:
		h.Spec.MinReplicas = r.int32Ptr()
	case 1:
		h.Spec.MaxReplicas = pick(r, fuzzInt32s...)
	case 2:
		h.Spec.ScaleTargetRef.APIVersion = pick(r, fuzzAPIVersions...)
	case 3:
		h.Spec.ScaleTargetRef.Kind = pick(r, fuzzKinds...)
	case 4:
		if len(h.Spec.Metrics) > 0 {
			h.Spec.Metrics[int(r.next())%len(h.Spec.Metrics)] = r.metric()
		}
	case 5:
		h.Spec.Behavior = nil
	case 6:
		h.Spec.Metrics = append(h.Spec.Metrics, r.metric())
	}
}
