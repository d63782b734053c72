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

package monitor

import (
	"testing"
	"time"

	"k8s.io/component-base/metrics"
)

func TestScopedDropsTheSeriesOfNamespacesOutside(t *testing.T) {
	registry := metrics.NewKubeRegistry()
	m := NewScoped(New(registry))
	for _, ns := range []string{"kept", "moved"} {
		hpa := HPARef{APIVersion: "autoscaling.kube-hpa.io/v2", Namespace: ns, Name: "web"}
		m.ObserveDesiredReplicas(hpa, 3)
		m.ObserveSyncPeriod(hpa, 15*time.Second)
		m.ObserveFallbacks(hpa, true, 1)
	}
	m.DropOutside(nil)
	m.DropOutside(func(ns string) bool { return ns == "kept" })

	if got := seriesByNamespace(t, registry); got["kept"] != 3 || got["moved"] != 0 {
		t.Errorf("series by namespace = %v, want the 3 of the namespace kept only", got)
	}

	// A namespace dropped and run again gets its series back, and can be
	// dropped again.
	moved := HPARef{APIVersion: "autoscaling.kube-hpa.io/v2", Namespace: "moved", Name: "web"}
	m.ObserveDesiredReplicas(moved, 2)
	if got := seriesByNamespace(t, registry); got["moved"] != 1 {
		t.Errorf("series by namespace = %v, want the moved one back", got)
	}
	m.DropOutside(func(ns string) bool { return ns == "kept" })
	if got := seriesByNamespace(t, registry); got["kept"] != 3 || got["moved"] != 0 {
		t.Errorf("series by namespace after the second drop = %v, want the 3 of the namespace kept only", got)
	}
}

// seriesByNamespace counts the series of registry by their namespace label.
func seriesByNamespace(t *testing.T, registry metrics.KubeRegistry) map[string]int {
	t.Helper()
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "namespace" {
					out[l.GetValue()]++
				}
			}
		}
	}
	return out
}
