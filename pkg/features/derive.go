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
	"fmt"

	"k8s.io/component-base/featuregate"
)

// Derive returns a gate of this project's features that takes each value
// from base where base knows the feature, and this project's default
// otherwise. In the in-tree mode base is kube-controller-manager's gate
// (its --feature-gates): the HPA gates it knows are then switched there,
// once, and the proposals the in-tree patch does not carry stay at their
// defaults (off), instead of panicking as an unknown feature would in
// base.Enabled.
func Derive(base featuregate.FeatureGate) (featuregate.FeatureGate, error) {
	known := base.DeepCopy().GetAll()
	values := map[string]bool{}
	for feature, spec := range Specs() {
		// A gate locked here (GA in the release this project follows)
		// keeps its value even where an older kube-controller-manager
		// still lets it be switched.
		if _, ok := known[feature]; ok && !spec.LockToDefault {
			values[string(feature)] = base.Enabled(feature)
		}
	}
	gate := NewFeatureGate()
	if err := gate.SetFromMap(values); err != nil {
		return nil, fmt.Errorf("taking the HPA feature gates from %v: %w", values, err)
	}
	return gate, nil
}
