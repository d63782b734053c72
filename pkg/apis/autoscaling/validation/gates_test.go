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
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// TestValidateExternalMetricFallback pins KEP-5679's rules: a fallback needs
// the HPAExternalMetricFallback gate unless the old object already had one,
// failureDurationSeconds is at least 180 (default 180) and at most 86400,
// and replicas at least 1.
func TestValidateExternalMetricFallback(t *testing.T) {
	const fb = "spec.metrics[0].external.fallback"
	with := func(d *int64, replicas int32) mutation {
		return metrics(withFallback(queueMetric(), d, replicas))
	}
	runValidationCases(t, []validationCase{
		{
			name:  "fallback is valid on create when HPAExternalMetricFallback is on",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](300), 5)),
		},
		{
			name:  "fallback is forbidden on create when HPAExternalMetricFallback is off",
			gates: fallbackOff,
			hpa:   hpa(with(ptr.To[int64](300), 5)),
			want:  []wantErr{forbidden(fb)},
		},
		{
			name:  "an External metric without fallback is valid when HPAExternalMetricFallback is off",
			gates: fallbackOff,
			hpa:   hpa(metrics(queueMetric())),
		},
		{
			name:  "fallback is forbidden by the default gates",
			gates: gateSetting{},
			hpa:   hpa(with(nil, 5)),
			want:  []wantErr{forbidden(fb)},
		},
		{
			name:  "a refused fallback is not checked further when the gate is off",
			gates: fallbackOff,
			hpa:   hpa(with(ptr.To[int64](1), 0)),
			want:  []wantErr{forbidden(fb)},
		},
		{
			name:  "failureDurationSeconds unset is defaulted to 180 and valid",
			gates: fallbackOn,
			hpa:   hpa(with(nil, 3)),
		},
		{
			name:  "failureDurationSeconds of exactly 180 is valid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](180), 3)),
		},
		{
			name:  "failureDurationSeconds of 179 is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](179), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "failureDurationSeconds of 0 is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](0), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "negative failureDurationSeconds is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](-180), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "failureDurationSeconds of exactly 86400 (one day) is valid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](86400), 3)),
		},
		{
			name:  "failureDurationSeconds of 86401 is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](86401), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "failureDurationSeconds that would overflow time.Duration is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](10000000000), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "the largest int64 failureDurationSeconds is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](math.MaxInt64), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "a failureDurationSeconds above the maximum that the old object carried stays valid on update",
			gates: fallbackOn,
			old:   hpa(with(ptr.To[int64](10000000000), 3)),
			hpa:   hpa(with(ptr.To[int64](10000000000), 3), maxReplicas(20)),
		},
		{
			name:  "a failureDurationSeconds above the maximum that the old object carried stays valid when the metric moves",
			gates: fallbackOn,
			old:   hpa(with(ptr.To[int64](100000), 3)),
			hpa:   hpa(metrics(cpuUtilization(50), withFallback(queueMetric(), ptr.To[int64](100000), 3))),
		},
		{
			name:  "a failureDurationSeconds above the maximum cannot be raised on update",
			gates: fallbackOn,
			old:   hpa(with(ptr.To[int64](100000), 3)),
			hpa:   hpa(with(ptr.To[int64](100001), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "a failureDurationSeconds above the maximum is invalid when added on update",
			gates: fallbackOn,
			old:   hpa(with(ptr.To[int64](300), 3)),
			hpa:   hpa(with(ptr.To[int64](100000), 3)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "a stored failureDurationSeconds above the maximum is not refused, so the controller keeps scaling it",
			gates: fallbackOn,
			op:    stored,
			hpa:   hpa(with(ptr.To[int64](10000000000), 3)),
		},
		{
			name:  "fallback replicas of 1 is valid",
			gates: fallbackOn,
			hpa:   hpa(with(nil, 1)),
		},
		{
			name:  "fallback replicas above maxReplicas is valid because the controller clamps it",
			gates: fallbackOn,
			hpa:   hpa(with(nil, 1000)),
		},
		{
			name:  "fallback replicas of 0 is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(nil, 0)),
			want:  []wantErr{invalid(fb + ".replicas")},
		},
		{
			name:  "negative fallback replicas is invalid",
			gates: fallbackOn,
			hpa:   hpa(with(nil, -2)),
			want:  []wantErr{invalid(fb + ".replicas")},
		},
		{
			name:  "a fallback wrong in both fields reports both",
			gates: fallbackOn,
			hpa:   hpa(with(ptr.To[int64](60), 0)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds"), invalid(fb + ".replicas")},
		},
		{
			name:  "a fallback error of a later metric carries its index",
			gates: fallbackOn,
			hpa:   hpa(metrics(cpuUtilization(50), withFallback(queueMetric(), nil, 0))),
			want:  []wantErr{invalid("spec.metrics[1].external.fallback.replicas")},
		},
		{
			name:  "fallback on several External metrics is forbidden on each when the gate is off",
			gates: fallbackOff,
			hpa:   hpa(metrics(withFallback(queueMetric(), nil, 2), withFallback(queueMetric(), nil, 3))),
			want:  []wantErr{forbidden(fb), forbidden("spec.metrics[1].external.fallback")},
		},
		{
			name:  "fallback kept on update stays valid after the gate is turned off",
			gates: fallbackOff,
			old:   hpa(with(ptr.To[int64](300), 5)),
			hpa:   hpa(with(ptr.To[int64](300), 5), maxReplicas(20)),
		},
		{
			name:  "fallback changed on update stays valid when the old object had one and the gate is off",
			gates: fallbackOff,
			old:   hpa(with(ptr.To[int64](300), 5)),
			hpa:   hpa(with(ptr.To[int64](600), 8)),
		},
		{
			name:  "a fallback moved to another metric on update stays valid when the old object had one and the gate is off",
			gates: fallbackOff,
			old:   hpa(with(nil, 5)),
			hpa:   hpa(metrics(queueMetric(), withFallback(queueMetric(), nil, 5))),
		},
		{
			name:  "a ratcheted fallback is still checked for its minimum duration",
			gates: fallbackOff,
			old:   hpa(with(ptr.To[int64](300), 5)),
			hpa:   hpa(with(ptr.To[int64](100), 5)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "a ratcheted fallback is still checked for its replicas",
			gates: fallbackOff,
			old:   hpa(with(nil, 5)),
			hpa:   hpa(with(nil, 0)),
			want:  []wantErr{invalid(fb + ".replicas")},
		},
		{
			name:  "fallback added on update is forbidden when the old object had none and the gate is off",
			gates: fallbackOff,
			old:   hpa(metrics(queueMetric())),
			hpa:   hpa(with(nil, 5)),
			want:  []wantErr{forbidden(fb)},
		},
		{
			name:  "fallback added on update is valid when the gate is on",
			gates: fallbackOn,
			old:   hpa(metrics(queueMetric())),
			hpa:   hpa(with(nil, 5)),
		},
		{
			name:  "fallback removed on update is valid when the gate is off",
			gates: fallbackOff,
			old:   hpa(with(nil, 5)),
			hpa:   hpa(metrics(queueMetric())),
		},
		{
			name:  "a stored fallback is not refused after the gate is turned off",
			gates: fallbackOff,
			op:    stored,
			hpa:   hpa(with(ptr.To[int64](300), 5)),
		},
		{
			name:  "a stored fallback is still checked for its minimum duration when the gate is off",
			gates: fallbackOff,
			op:    stored,
			hpa:   hpa(with(ptr.To[int64](30), 5)),
			want:  []wantErr{invalid(fb + ".failureDurationSeconds")},
		},
		{
			name:  "a stored fallback is checked for its replicas when the gate is on",
			gates: fallbackOn,
			op:    stored,
			hpa:   hpa(with(nil, 0)),
			want:  []wantErr{invalid(fb + ".replicas")},
		},
	})
}

// TestValidateScaleToZero pins KEP-2021's rules: minReplicas 0 needs the
// HPAScaleToZero gate unless the old object already had it, and always needs
// at least one Object or External metric.
func TestValidateScaleToZero(t *testing.T) {
	const (
		minPath     = "spec.minReplicas"
		metricsPath = "spec.metrics"
	)
	runValidationCases(t, []validationCase{
		{
			name:  "minReplicas 0 with an Object metric is valid on create when HPAScaleToZero is on",
			gates: scaleToZeroOn,
			hpa:   hpa(minReplicas(0), metrics(ingressObjectMetric())),
		},
		{
			name:  "minReplicas 0 with an External metric is valid on create when HPAScaleToZero is on",
			gates: scaleToZeroOn,
			hpa:   hpa(minReplicas(0), metrics(queueMetric())),
		},
		{
			name:  "minReplicas 0 with a Pods and an External metric is valid when HPAScaleToZero is on",
			gates: scaleToZeroOn,
			hpa:   hpa(minReplicas(0), metrics(podsMetric("rps", averageValueTarget("1")), queueMetric())),
		},
		{
			name:  "minReplicas 0 is valid with the default gates",
			gates: gateSetting{},
			hpa:   hpa(minReplicas(0), metrics(queueMetric())),
		},
		{
			name:  "minReplicas 0 is refused on create when HPAScaleToZero is off",
			gates: scaleToZeroOff,
			hpa:   hpa(minReplicas(0), metrics(ingressObjectMetric())),
			want:  []wantErr{invalid(minPath)},
		},
		{
			name:  "minReplicas 0 with only a Resource metric is forbidden when HPAScaleToZero is on",
			gates: scaleToZeroOn,
			hpa:   hpa(minReplicas(0)),
			want:  []wantErr{forbidden(metricsPath)},
		},
		{
			name:  "minReplicas 0 with only Pods and ContainerResource metrics is forbidden when HPAScaleToZero is on",
			gates: scaleToZeroOn,
			hpa: hpa(minReplicas(0), metrics(
				podsMetric("rps", averageValueTarget("1")),
				containerMetric("cpu", "app", utilizationTarget(50)))),
			want: []wantErr{forbidden(metricsPath)},
		},
		{
			name:  "minReplicas 0 with only a Resource metric reports both the gate and the metrics when HPAScaleToZero is off",
			gates: scaleToZeroOff,
			hpa:   hpa(minReplicas(0)),
			want:  []wantErr{invalid(minPath), forbidden(metricsPath)},
		},
		{
			name:  "minReplicas 0 without metrics is forbidden because the defaulted CPU metric cannot scale from zero",
			gates: scaleToZeroOn,
			hpa:   hpa(minReplicas(0), metrics()),
			want:  []wantErr{forbidden(metricsPath)},
		},
		{
			name:  "a metric of type External counts for scale to zero even without its source",
			gates: scaleToZeroOn,
			hpa:   hpa(minReplicas(0), metrics(v2.MetricSpec{Type: "External"})),
			want:  []wantErr{required("spec.metrics[0].external")},
		},
		{
			name:  "negative minReplicas is invalid when HPAScaleToZero is on",
			gates: scaleToZeroOn,
			hpa:   hpa(minReplicas(-1), metrics(queueMetric())),
			want:  []wantErr{invalid(minPath)},
		},
		{
			name:  "minReplicas 0 kept on update stays valid after HPAScaleToZero is turned off",
			gates: scaleToZeroOff,
			old:   hpa(minReplicas(0), metrics(queueMetric())),
			hpa:   hpa(minReplicas(0), metrics(queueMetric()), maxReplicas(3)),
		},
		{
			name:  "minReplicas 0 set on update is refused when the old object had 1 and HPAScaleToZero is off",
			gates: scaleToZeroOff,
			old:   hpa(metrics(queueMetric())),
			hpa:   hpa(minReplicas(0), metrics(queueMetric())),
			want:  []wantErr{invalid(minPath)},
		},
		{
			name:  "minReplicas 0 set on update is valid when HPAScaleToZero is on",
			gates: scaleToZeroOn,
			old:   hpa(metrics(queueMetric())),
			hpa:   hpa(minReplicas(0), metrics(queueMetric())),
		},
		{
			name:  "minReplicas raised from 0 to 1 on update is valid when HPAScaleToZero is off",
			gates: scaleToZeroOff,
			old:   hpa(minReplicas(0), metrics(queueMetric())),
			hpa:   hpa(minReplicas(1), metrics(queueMetric())),
		},
		{
			name:  "a ratcheted minReplicas 0 still needs an Object or External metric",
			gates: scaleToZeroOff,
			old:   hpa(minReplicas(0), metrics(queueMetric())),
			hpa:   hpa(minReplicas(0)),
			want:  []wantErr{forbidden(metricsPath)},
		},
		{
			name:  "a ratcheted minReplicas 0 does not allow negative minReplicas",
			gates: scaleToZeroOff,
			old:   hpa(minReplicas(0), metrics(queueMetric())),
			hpa:   hpa(minReplicas(-1), metrics(queueMetric())),
			want:  []wantErr{invalid(minPath)},
		},
		{
			name:  "a stored minReplicas 0 is not refused after HPAScaleToZero is turned off",
			gates: scaleToZeroOff,
			op:    stored,
			hpa:   hpa(minReplicas(0), metrics(ingressObjectMetric())),
		},
		{
			name:  "a stored minReplicas 0 without an Object or External metric is refused",
			gates: scaleToZeroOff,
			op:    stored,
			hpa:   hpa(minReplicas(0)),
			want:  []wantErr{forbidden(metricsPath)},
		},
	})
}

// TestValidateTolerance pins the rules of behavior tolerance: never
// negative. Its gate, HPAConfigurableTolerance, is GA and locked on since
// v1.37, so a tolerance is never refused for the gate.
func TestValidateTolerance(t *testing.T) {
	const (
		upTol   = "spec.behavior.scaleUp.tolerance"
		downTol = "spec.behavior.scaleDown.tolerance"
	)
	tolUp := func(q string) mutation { return behavior(withTolerance(rules(nil), q), nil) }
	tolDown := func(q string) mutation { return behavior(nil, withTolerance(rules(nil), q)) }
	runValidationCases(t, []validationCase{
		{
			name:  "a scaleUp tolerance is valid on create",
			gates: gateSetting{},
			hpa:   hpa(tolUp("0.05")),
		},
		{
			name:  "a tolerance is valid with the default gates",
			gates: gateSetting{},
			hpa:   hpa(tolDown("50m")),
		},
		{
			name:  "a tolerance of 0 is valid",
			gates: gateSetting{},
			hpa:   hpa(tolDown("0")),
		},
		{
			name:  "a tolerance above 1 is valid",
			gates: gateSetting{},
			hpa:   hpa(tolUp("2")),
		},
		{
			name:  "a negative scaleUp tolerance is invalid",
			gates: gateSetting{},
			hpa:   hpa(tolUp("-0.1")),
			want:  []wantErr{invalid(upTol)},
		},
		{
			name:  "a negative scaleDown tolerance is invalid",
			gates: gateSetting{},
			hpa:   hpa(tolDown("-1m")),
			want:  []wantErr{invalid(downTol)},
		},
		{
			name:  "a ratcheted tolerance is still checked for sign",
			gates: gateSetting{},
			old:   hpa(tolDown("0.05")),
			hpa:   hpa(tolDown("-0.05")),
			want:  []wantErr{invalid(downTol)},
		},
		{
			name:  "tolerance added on update is valid",
			gates: gateSetting{},
			old:   hpa(),
			hpa:   hpa(tolUp("0.05")),
		},
		{
			name:  "a stored negative tolerance is refused",
			gates: gateSetting{},
			op:    stored,
			hpa:   hpa(tolDown("-0.1")),
			want:  []wantErr{invalid(downTol)},
		},
	})
}

// TestValidateGatesTogether pins that the gated rules are independent of
// one another: each gate decides only its own field.
func TestValidateGatesTogether(t *testing.T) {
	everything := func() *v2.HorizontalPodAutoscaler {
		return hpa(minReplicas(0), metrics(withFallback(queueMetric(), nil, 4), withSource(podsMetric("queue_per_pod", averageValueTarget("5")), "metrics.example.com")),
			behavior(withTolerance(rules(nil), "0.1"), nil), syncPeriod(3))
	}
	allOff := gateSetting{
		features.HPAExternalMetricFallback: false,
		features.HPAScaleToZero:            false,
		features.HPAConfigurableSyncPeriod: false,
		features.HPAMetricSource:           false,
	}
	runValidationCases(t, []validationCase{
		{
			name: "every gated field is valid when every gate is on",
			gates: gateSetting{
				features.HPAExternalMetricFallback: true,
				features.HPAScaleToZero:            true,
				features.HPAConfigurableSyncPeriod: true,
				features.HPAMetricSource:           true,
			},
			hpa: everything(),
		},
		{
			name:  "every gated field is refused on its own path when every gate is off",
			gates: allOff,
			hpa:   everything(),
			want: []wantErr{
				invalid("spec.minReplicas"), forbidden("spec.metrics[0].external.fallback"),
				forbidden("spec.syncPeriodSeconds"), forbidden("spec.metrics[1].pods.metric.source"),
			},
		},
		{
			name:  "every gated field is ratcheted on update when every gate is off",
			gates: allOff,
			old:   everything(),
			hpa:   everything(),
		},
		{
			name:  "every gated field of a stored object is accepted when every gate is off",
			gates: allOff,
			op:    stored,
			hpa:   everything(),
		},
	})
}

// TestGatedFieldErrorsNameTheirGate checks that an error caused by a gate
// being off tells the user which gate to turn on.
func TestGatedFieldErrorsNameTheirGate(t *testing.T) {
	cases := []struct {
		name string
		gate featuregate.Feature
		hpa  *v2.HorizontalPodAutoscaler
		path string
	}{
		{
			name: "fallback",
			gate: features.HPAExternalMetricFallback,
			hpa:  hpa(metrics(withFallback(queueMetric(), nil, 2))),
			path: "spec.metrics[0].external.fallback",
		},
		{
			name: "minReplicas 0",
			gate: features.HPAScaleToZero,
			hpa:  hpa(minReplicas(0), metrics(queueMetric())),
			path: "spec.minReplicas",
		},
		{
			name: "metric source",
			gate: features.HPAMetricSource,
			hpa:  hpa(metrics(withSource(queueMetric(), "metrics.example.com"))),
			path: "spec.metrics[0].external.metric.source",
		},
		{
			name: "syncPeriodSeconds",
			gate: features.HPAConfigurableSyncPeriod,
			hpa:  hpa(syncPeriod(5)),
			path: "spec.syncPeriodSeconds",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gate := newGate(t, gateSetting{tc.gate: false})
			errs := ValidateHorizontalPodAutoscaler(tc.hpa, gate)
			if len(errs) != 1 {
				t.Fatalf("want exactly one error, got %v", errs)
			}
			if errs[0].Field != tc.path {
				t.Errorf("error is on %q, want %q", errs[0].Field, tc.path)
			}
			if !strings.Contains(errs[0].Error(), string(tc.gate)) {
				t.Errorf("error %q does not name the %s feature gate", errs[0].Error(), tc.gate)
			}
		})
	}
}

// TestValidationDoesNotMutateItsInput checks that validators default a copy:
// the objects passed in, including unset fields that defaulting fills, are
// unchanged afterwards.
func TestValidationDoesNotMutateItsInput(t *testing.T) {
	objects := map[string]func() *v2.HorizontalPodAutoscaler{
		"unset minReplicas and no metrics": func() *v2.HorizontalPodAutoscaler {
			return hpa(noMinReplicas(), metrics())
		},
		"partial behavior": func() *v2.HorizontalPodAutoscaler {
			return hpa(behavior(rules(ptr.To[int32](30)),
				&autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect)}))
		},
		"fallback without failureDurationSeconds": func() *v2.HorizontalPodAutoscaler {
			return hpa(metrics(withFallback(queueMetric(), nil, 3)))
		},
		"invalid everywhere": func() *v2.HorizontalPodAutoscaler {
			return hpa(target("", "", "x/y/z"), minReplicas(-3), maxReplicas(-4),
				metrics(v2.MetricSpec{Type: "Bogus"}, withFallback(queueMetric(), ptr.To[int64](1), 0)),
				behavior(withTolerance(rules(ptr.To[int32](-1)), "-1"), nil))
		},
	}
	for name, build := range objects {
		t.Run(name, func(t *testing.T) {
			gate := newGate(t, gateSetting{features.HPAExternalMetricFallback: true})
			obj, old := build(), build()
			obj.Spec.MaxReplicas++
			wantObj, wantOld := obj.DeepCopy(), old.DeepCopy()

			ValidateHorizontalPodAutoscaler(obj, gate)
			ValidateHorizontalPodAutoscalerUpdate(obj, old, gate)
			ValidateStored(obj, gate)

			// reflect.DeepEqual rather than equality.Semantic: a nil
			// slice turned into an empty one is a change too.
			if !reflect.DeepEqual(obj, wantObj) {
				t.Errorf("validation changed the new object:\n got: %+v\nwant: %+v", obj.Spec, wantObj.Spec)
			}
			if !reflect.DeepEqual(old, wantOld) {
				t.Errorf("validation changed the old object:\n got: %+v\nwant: %+v", old.Spec, wantOld.Spec)
			}
		})
	}
}
