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

func TestDeriveTakesWhatTheBaseGateKnows(t *testing.T) {
	// base stands for kube-controller-manager's gate: it knows some of
	// this project's features (with its own defaults) and others of its own.
	newBase := func(t *testing.T, set map[string]bool) featuregate.FeatureGate {
		t.Helper()
		base := featuregate.NewFeatureGate()
		if err := base.Add(map[featuregate.Feature]featuregate.FeatureSpec{
			HPAExternalMetricFallback: {Default: false, PreRelease: featuregate.Alpha},
			HPAScaleToZero:            {Default: true, PreRelease: featuregate.Beta},
			HPAConfigurableTolerance:  {Default: true, PreRelease: featuregate.Beta},
			PodLevelResources:         {Default: true, PreRelease: featuregate.Beta},
			"SomethingElse":           {Default: true, PreRelease: featuregate.Beta},
		}); err != nil {
			t.Fatal(err)
		}
		if err := base.SetFromMap(set); err != nil {
			t.Fatal(err)
		}
		return base
	}
	cases := []struct {
		name string
		set  map[string]bool
		want map[featuregate.Feature]bool
	}{{
		name: "the base's defaults become the derived values",
		want: map[featuregate.Feature]bool{HPAExternalMetricFallback: false, HPAScaleToZero: true, HPAConfigurableTolerance: true, PodLevelResources: true},
	}, {
		name: "a feature switched on in the base is on",
		set:  map[string]bool{string(HPAExternalMetricFallback): true},
		want: map[featuregate.Feature]bool{HPAExternalMetricFallback: true, HPAScaleToZero: true},
	}, {
		name: "a feature switched off in the base is off",
		set:  map[string]bool{string(HPAScaleToZero): false, string(PodLevelResources): false},
		want: map[featuregate.Feature]bool{HPAScaleToZero: false, PodLevelResources: false},
	}, {
		name: "a feature locked here keeps its value whatever an older base says (v1.36 has tolerance beta)",
		set:  map[string]bool{string(HPAConfigurableTolerance): false},
		want: map[featuregate.Feature]bool{HPAConfigurableTolerance: true},
	}, {
		name: "a feature the base does not know keeps this project's default",
		set:  map[string]bool{string(HPAExternalMetricFallback): true},
		want: map[featuregate.Feature]bool{HPAExternalMetricFallbackStrategy: false},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gate, err := Derive(newBase(t, tc.set))
			if err != nil {
				t.Fatal(err)
			}
			for feature, want := range tc.want {
				if got := gate.Enabled(feature); got != want {
					t.Errorf("%s = %v, want %v", feature, got, want)
				}
			}
		})
	}
}
