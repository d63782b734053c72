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

package localcluster

import (
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"
)

// TestInTreeVersionSkew runs the in-tree builds of two releases together,
// as an upgrade does: kube-apiserver first, kube-controller-manager one
// minor behind it until its turn. KUBE_HPA_INTREE_SKEW_BIN_DIR is the
// build of the older series (make intree-series sets it to v1.36.3's),
// the default in-tree directory the newer one's.
func TestInTreeVersionSkew(t *testing.T) {
	older := os.Getenv("KUBE_HPA_INTREE_SKEW_BIN_DIR")
	if older == "" {
		t.Skip("needs KUBE_HPA_INTREE_SKEW_BIN_DIR, the in-tree build of the release before the default one (make intree-series sets it)")
	}
	gates := map[string]bool{"HPAExternalMetricFallback": true}
	t.Run("a kube-controller-manager one minor older than kube-apiserver applies the fallback", func(t *testing.T) {
		c := startedClusterForTest(t, Options{
			InTree:                  true,
			ControllerManagerBinDir: older,
			HPAController:           true,
			FeatureGates:            gates,
			HPA:                     HPAControllerFlags{SyncPeriod: time.Second},
		})
		log, err := os.ReadFile(c.LogPath(binControllerManager))
		if err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(string(log), "\n"); !strings.Contains(first, older) {
			t.Fatalf("kube-controller-manager started as %q, want the one of %s", first, older)
		}
		// The fallback field has the same name and number in both series:
		// the older manager reads what the newer server stores and writes
		// the state it keeps.
		applyFailingFallbackHPA(t, c)
		waitForFallbackState(t, c)
	})
	t.Run("a kube-controller-manager newer than kube-apiserver is refused", func(t *testing.T) {
		if os.Getenv("KUBE_HPA_INTEGRATION") != "1" {
			t.Skip("starts a local cluster: set KUBE_HPA_INTEGRATION=1")
		}
		newer, err := Options{}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		_, ctx := ktesting.NewTestContext(t)
		c, err := Start(ctx, Options{InTree: true, InTreeBinDir: older, ControllerManagerBinDir: newer.InTreeBinDir, HPAController: true, FeatureGates: gates, Nodes: 1, NoCRDs: true})
		if err == nil {
			_ = c.Stop()
			t.Fatal("started a kube-controller-manager newer than its kube-apiserver")
		}
		if !strings.Contains(err.Error(), "is newer than kube-apiserver") || !strings.Contains(err.Error(), "version-skew-policy") {
			t.Errorf("error = %v, want the version skew policy's refusal", err)
		}
	})
}
