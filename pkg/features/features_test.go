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

package features

import (
	"testing"

	"k8s.io/component-base/featuregate"
)

func TestGatesHaveTheirStageAndDefault(t *testing.T) {
	alpha, beta, ga := featuregate.FeatureSpec{PreRelease: featuregate.Alpha}, featuregate.FeatureSpec{PreRelease: featuregate.Beta}, featuregate.FeatureSpec{PreRelease: featuregate.GA}
	cases := []struct {
		name    string
		gate    featuregate.Feature
		stage   featuregate.FeatureSpec // only its PreRelease
		enabled bool
		locked  bool
	}{
		{name: "external metric fallback is alpha and off", gate: HPAExternalMetricFallback, stage: alpha},
		{name: "fallback strategy is alpha and off", gate: HPAExternalMetricFallbackStrategy, stage: alpha},
		{name: "configurable sync period is alpha and off", gate: HPAConfigurableSyncPeriod, stage: alpha},
		{name: "kube-hpa's decision trace is alpha and off", gate: KubeHPADecisionTrace, stage: alpha},
		{name: "the trace's former KEP-6107 name is deprecated and off", gate: HPAStatusDecisionTrace, stage: featuregate.FeatureSpec{PreRelease: featuregate.Deprecated}},
		{name: "scale to zero is beta and on, as in kube-controller-manager v1.37", gate: HPAScaleToZero, stage: beta, enabled: true},
		{name: "configurable tolerance is GA and locked on, as in v1.37", gate: HPAConfigurableTolerance, stage: ga, enabled: true, locked: true},
		{name: "generation is beta and on, as in v1.37", gate: HPAGeneration, stage: beta, enabled: true},
		{name: "stale controller consistency is beta and on, as in v1.37", gate: StaleControllerConsistencyHPA, stage: beta, enabled: true},
		{name: "optimized selector store is beta and on, as in v1.37", gate: HPAOptimizedSelectorStore, stage: beta, enabled: true},
		{name: "pod-level resources is beta and on, as in kube-controller-manager v1.37", gate: PodLevelResources, stage: beta, enabled: true},
	}
	gate := NewFeatureGate()
	known := gate.GetAll()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec, ok := known[tc.gate]
			if !ok {
				t.Fatalf("gate %s is not registered", tc.gate)
			}
			if spec.PreRelease != tc.stage.PreRelease || gate.Enabled(tc.gate) != tc.enabled || spec.LockToDefault != tc.locked {
				t.Errorf("%s: stage %q enabled %v locked %v, want %q %v %v", tc.gate, spec.PreRelease, gate.Enabled(tc.gate), spec.LockToDefault, tc.stage.PreRelease, tc.enabled, tc.locked)
			}
		})
	}
	if err := gate.SetFromMap(map[string]bool{string(HPAConfigurableTolerance): false}); err == nil {
		t.Error("HPAConfigurableTolerance=false was accepted; v1.37 refuses it")
	}
}

func TestEachGateIsItsOwn(t *testing.T) {
	a, b := NewFeatureGate(), NewFeatureGate()
	if err := a.SetFromMap(map[string]bool{string(HPAExternalMetricFallback): true}); err != nil {
		t.Fatal(err)
	}
	if b.Enabled(HPAExternalMetricFallback) {
		t.Error("setting one gate changed another: gates must not share state")
	}
}

// TestDecisionTraceKeepsItsFormerName: a deployment that still sets the
// trace's KEP-6107 name is not refused as setting an unknown gate, and
// keeps its trace.
func TestDecisionTraceKeepsItsFormerName(t *testing.T) {
	for _, tc := range []struct {
		name, flag string
		want       bool
	}{
		{name: "the gate's own name turns it on", flag: "KubeHPADecisionTrace=true", want: true},
		{name: "the former name turns it on", flag: "HPAStatusDecisionTrace=true", want: true},
		{name: "neither leaves it off", flag: "KubeHPADecisionTrace=false", want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := NewFeatureGate()
			if err := gate.Set(tc.flag); err != nil {
				t.Fatalf("--feature-gates=%s refused: %v", tc.flag, err)
			}
			if got := DecisionTrace(gate); got != tc.want {
				t.Errorf("DecisionTrace = %v, want %v", got, tc.want)
			}
		})
	}
}
