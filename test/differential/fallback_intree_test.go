//go:build intree && !nofallback

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

package differential

import (
	"fmt"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
)

// TestInTreeFallback plays fallback sequences (fallback.go) against the
// two implementations of KEP-5679, each with HPAExternalMetricFallback on:
// hack/intree's patch of upstream's HorizontalController and kube-hpa's
// Controller. They must agree on the scale, status (the fallback state of
// every External metric included), conditions and events at every step,
// but where the oracle's allow-list says why kube-hpa differs from
// upstream everywhere.
func TestInTreeFallback(t *testing.T) {
	withFallbackGate(t)
	rep := newReport("intree-fallback", *seedFlag)
	inWorkers(t, func(t *testing.T, i int) {
		checkSeq(t, generatedFallbackSeq(*seedFlag, i), rep, fmt.Sprintf("-run TestTrace -args -trace -fallback -seed %d -case %d", *seedFlag, i))
	})
	rep.finish(t)
}

// withFallbackGate turns the patched upstream's HPAExternalMetricFallback
// on for the test (kube-hpa's world has its own gates, on).
func withFallbackGate(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.HPAExternalMetricFallback, true)
}
