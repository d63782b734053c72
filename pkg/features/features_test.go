package features

import (
	"testing"

	"k8s.io/component-base/featuregate"
)

func TestGatesHaveTheirStageAndDefault(t *testing.T) {
	cases := []struct {
		name    string
		gate    featuregate.Feature
		alpha   bool
		enabled bool
	}{
		{name: "external metric fallback is alpha and off", gate: HPAExternalMetricFallback, alpha: true, enabled: false},
		{name: "fallback strategy is alpha and off", gate: HPAExternalMetricFallbackStrategy, alpha: true, enabled: false},
		{name: "configurable sync period is alpha and off", gate: HPAConfigurableSyncPeriod, alpha: true, enabled: false},
		{name: "status decision trace is alpha and off", gate: HPAStatusDecisionTrace, alpha: true, enabled: false},
		{name: "scale to zero is beta and on", gate: HPAScaleToZero, alpha: false, enabled: true},
		{name: "configurable tolerance is beta and on", gate: HPAConfigurableTolerance, alpha: false, enabled: true},
		{name: "pod-level resources is beta and on, as in kube-controller-manager v1.36", gate: PodLevelResources, alpha: false, enabled: true},
	}
	gate := NewFeatureGate()
	known := gate.GetAll()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec, ok := known[tc.gate]
			if !ok {
				t.Fatalf("gate %s is not registered", tc.gate)
			}
			wantStage := featuregate.Beta
			if tc.alpha {
				wantStage = featuregate.Alpha
			}
			if spec.PreRelease != wantStage || gate.Enabled(tc.gate) != tc.enabled {
				t.Errorf("%s: stage %s enabled %v, want %s %v", tc.gate, spec.PreRelease, gate.Enabled(tc.gate), wantStage, tc.enabled)
			}
		})
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
