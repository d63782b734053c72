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
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// operation says which validator a case exercises.
type operation int

const (
	create operation = iota
	update
	stored
)

func (o operation) String() string {
	switch o {
	case create:
		return "create"
	case update:
		return "update"
	case stored:
		return "stored"
	}
	return fmt.Sprintf("operation(%d)", int(o))
}

// gateSetting is the state of every gate this package reads.
type gateSetting map[featuregate.Feature]bool

func (g gateSetting) String() string {
	names := make([]string, 0, len(g))
	for f, on := range g {
		names = append(names, fmt.Sprintf("%s=%t", f, on))
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

var gatedFeatures = []featuregate.Feature{
	features.HPAExternalMetricFallback,
	features.HPAScaleToZero,
	features.HPAExternalMetricFallbackStrategy,
	features.HPAConfigurableSyncPeriod,
	features.KubeHPADecisionTrace,
	features.HPAMetricSource,
}

// allGateSettings lists every combination of the gates.
func allGateSettings() []gateSetting {
	var out []gateSetting
	for bits := 0; bits < 1<<len(gatedFeatures); bits++ {
		s := gateSetting{}
		for i, f := range gatedFeatures {
			s[f] = bits&(1<<i) != 0
		}
		out = append(out, s)
	}
	return out
}

// newGate returns a fresh gate with the given features flipped for the
// duration of the test.
func newGate(t *testing.T, setting gateSetting) featuregate.FeatureGate {
	t.Helper()
	gate := features.NewFeatureGate()
	for f, on := range setting {
		featuregatetesting.SetFeatureGateDuringTest(t, gate, f, on)
	}
	return gate
}

// wantErr is one expected error: its type and its field path.
type wantErr struct {
	typ  field.ErrorType
	path string
}

func (w wantErr) String() string { return fmt.Sprintf("%s %s", w.path, w.typ) }

func invalid(path string) wantErr      { return wantErr{field.ErrorTypeInvalid, path} }
func required(path string) wantErr     { return wantErr{field.ErrorTypeRequired, path} }
func forbidden(path string) wantErr    { return wantErr{field.ErrorTypeForbidden, path} }
func notSupported(path string) wantErr { return wantErr{field.ErrorTypeNotSupported, path} }

func errorKeys(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, wantErr{e.Type, e.Field}.String())
	}
	sort.Strings(out)
	return out
}

func wantKeys(want []wantErr) []string {
	out := make([]string, 0, len(want))
	for _, w := range want {
		out = append(out, w.String())
	}
	sort.Strings(out)
	return out
}

// assertErrors fails unless errs holds exactly the wanted errors, counted
// with multiplicity and compared by type and field path.
func assertErrors(t *testing.T, errs field.ErrorList, want []wantErr) {
	t.Helper()
	got, exp := errorKeys(errs), wantKeys(want)
	if !slices.Equal(got, exp) {
		t.Errorf("errors differ\n got: %q\nwant: %q\nfull: %v", got, exp, errs)
	}
}

// validationCase is one row of a validation table.
type validationCase struct {
	name string
	// gates fixes the gates for this case; nil runs it under every
	// combination, because the rule it pins must not depend on any gate.
	gates gateSetting
	// op defaults to create, or to update when old is set.
	op   operation
	old  *v2.HorizontalPodAutoscaler
	hpa  *v2.HorizontalPodAutoscaler
	want []wantErr
}

func (tc validationCase) operation() operation {
	if tc.op == create && tc.old != nil {
		return update
	}
	return tc.op
}

func (tc validationCase) validate(t *testing.T, gate featuregate.FeatureGate) field.ErrorList {
	t.Helper()
	switch tc.operation() {
	case create:
		return ValidateHorizontalPodAutoscaler(tc.hpa, gate)
	case update:
		if tc.old == nil {
			t.Fatalf("update case without an old object")
		}
		return ValidateHorizontalPodAutoscalerUpdate(tc.hpa, tc.old, gate)
	case stored:
		return ValidateStored(tc.hpa, gate)
	}
	t.Fatalf("unknown operation %v", tc.op)
	return nil
}

// runValidationCases runs each case as a subtest, under every gate
// combination unless the case fixes its gates.
func runValidationCases(t *testing.T, cases []validationCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			settings := []gateSetting{tc.gates}
			if tc.gates == nil {
				settings = allGateSettings()
			}
			for _, setting := range settings {
				t.Run(tc.operation().String()+"_"+setting.String(), func(t *testing.T) {
					gate := newGate(t, setting)
					assertErrors(t, tc.validate(t, gate), tc.want)
				})
			}
		})
	}
}

// Builders. Every builder returns a fresh object, so cases never share
// memory.

type mutation func(*v2.HorizontalPodAutoscaler)

// hpa returns a valid HPA of a Deployment scaled on CPU utilization, with
// the mutations applied in order.
func hpa(mutations ...mutation) *v2.HorizontalPodAutoscaler {
	out := &v2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: metav1.NamespaceDefault, ResourceVersion: "1"},
		Spec: v2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    ptr.To[int32](1),
			MaxReplicas:    10,
			Metrics:        []v2.MetricSpec{cpuUtilization(80)},
		},
	}
	for _, m := range mutations {
		m(out)
	}
	return out
}

func minReplicas(n int32) mutation {
	return func(h *v2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr.To(n) }
}

func noMinReplicas() mutation {
	return func(h *v2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = nil }
}

func maxReplicas(n int32) mutation {
	return func(h *v2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = n }
}

func target(kind, name, apiVersion string) mutation {
	return func(h *v2.HorizontalPodAutoscaler) {
		h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{Kind: kind, Name: name, APIVersion: apiVersion}
	}
}

func metrics(ms ...v2.MetricSpec) mutation {
	return func(h *v2.HorizontalPodAutoscaler) { h.Spec.Metrics = ms }
}

func behavior(up, down *autoscalingv2.HPAScalingRules) mutation {
	return func(h *v2.HorizontalPodAutoscaler) {
		h.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{ScaleUp: up, ScaleDown: down}
	}
}

// syncPeriod sets behavior.syncPeriodSeconds, keeping the rest of the
// behavior (none by default).
// syncPeriod sets spec.syncPeriodSeconds (KEP-6003).
func syncPeriod(seconds int32) mutation {
	return func(h *v2.HorizontalPodAutoscaler) { h.Spec.SyncPeriodSeconds = ptr.To(seconds) }
}

// deprecatedSyncPeriod sets the deprecated behavior.syncPeriodSeconds, where
// the KEP first put the field.
func deprecatedSyncPeriod(seconds int32) mutation {
	return func(h *v2.HorizontalPodAutoscaler) {
		if h.Spec.Behavior == nil {
			h.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{}
		}
		h.Spec.Behavior.SyncPeriodSeconds = ptr.To(seconds)
	}
}

func qty(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

func cpuUtilization(percent int32) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)},
		},
	}
}

func resourceMetric(name corev1.ResourceName, t autoscalingv2.MetricTarget) v2.MetricSpec {
	return v2.MetricSpec{
		Type:     autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: name, Target: t},
	}
}

func containerMetric(name corev1.ResourceName, container string, t autoscalingv2.MetricTarget) v2.MetricSpec {
	return v2.MetricSpec{
		Type:              autoscalingv2.ContainerResourceMetricSourceType,
		ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: name, Container: container, Target: t},
	}
}

func podsMetric(name string, t autoscalingv2.MetricTarget) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.PodsMetricSourceType,
		Pods: &v2.PodsMetricSource{Metric: v2.MetricIdentifier{Name: name}, Target: t},
	}
}

func objectMetric(kind, name, apiVersion, metric string, t autoscalingv2.MetricTarget) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &v2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference{Kind: kind, Name: name, APIVersion: apiVersion},
			Metric:          v2.MetricIdentifier{Name: metric},
			Target:          t,
		},
	}
}

// ingressObjectMetric is a valid Object metric.
func ingressObjectMetric() v2.MetricSpec {
	return objectMetric("Ingress", "main", "networking.k8s.io/v1", "requests-per-second", valueTarget("2k"))
}

func externalMetric(name string, t autoscalingv2.MetricTarget) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricSource{
			Metric: v2.MetricIdentifier{
				Name:     name,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "jobs"}},
			},
			Target: t,
		},
	}
}

// queueMetric is a valid External metric.
func queueMetric() v2.MetricSpec {
	return externalMetric("queue_messages_ready", averageValueTarget("30"))
}

// withFallback returns m (an External metric) with a fallback.
func withFallback(m v2.MetricSpec, failureDurationSeconds *int64, replicas int32) v2.MetricSpec {
	m.External.Fallback = &v2.ExternalMetricFallback{FailureDurationSeconds: failureDurationSeconds, Replicas: replicas}
	return m
}

func utilizationTarget(percent int32) autoscalingv2.MetricTarget {
	return autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)}
}

func averageValueTarget(q string) autoscalingv2.MetricTarget {
	return autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: qty(q)}
}

func valueTarget(q string) autoscalingv2.MetricTarget {
	return autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: qty(q)}
}

func rules(window *int32, policies ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: window, Policies: policies}
}

func podsPolicy(value, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: value, PeriodSeconds: period}
}

func percentPolicy(value, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: value, PeriodSeconds: period}
}

func withSelect(r *autoscalingv2.HPAScalingRules, p autoscalingv2.ScalingPolicySelect) *autoscalingv2.HPAScalingRules {
	r.SelectPolicy = ptr.To(p)
	return r
}

func withTolerance(r *autoscalingv2.HPAScalingRules, q string) *autoscalingv2.HPAScalingRules {
	r.Tolerance = qty(q)
	return r
}

// Gate settings used by the gated cases; the other gates keep their
// defaults, and every gated rule has cases with its gate on and off.
var (
	fallbackOn     = gateSetting{features.HPAExternalMetricFallback: true}
	fallbackOff    = gateSetting{features.HPAExternalMetricFallback: false}
	scaleToZeroOn  = gateSetting{features.HPAScaleToZero: true}
	scaleToZeroOff = gateSetting{features.HPAScaleToZero: false}
	syncPeriodOn   = gateSetting{features.HPAConfigurableSyncPeriod: true}
	syncPeriodOff  = gateSetting{features.HPAConfigurableSyncPeriod: false}
)
