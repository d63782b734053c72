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

package bench

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestMixPeriods(t *testing.T) {
	cases := []struct {
		name     string
		hpas     int
		wantFast int
		wantRate float64
	}{
		{name: "a tenth of 1,000 HPAs at 3s, the rest at 15s", hpas: 1000, wantFast: 100, wantRate: 100.0/3 + 900.0/15},
		{name: "a tenth of 200 HPAs", hpas: 200, wantFast: 20, wantRate: 20.0/3 + 180.0/15},
		{name: "HPA 0 is fast even among fewer than ten", hpas: 5, wantFast: 1, wantRate: 1.0/3 + 4.0/15},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fast := 0
			for i := range tc.hpas {
				if fastHPA(i) {
					fast++
				}
			}
			if fast != tc.wantFast || fastHPAs(tc.hpas) != tc.wantFast {
				t.Errorf("fast HPAs = %d (fastHPAs %d), want %d", fast, fastHPAs(tc.hpas), tc.wantFast)
			}
			if got := expectedRate(tc.hpas, fast, mixFastPeriod, 15*time.Second); got < tc.wantRate-1e-9 || got > tc.wantRate+1e-9 {
				t.Errorf("expected rate = %v, want %v", got, tc.wantRate)
			}
		})
	}
}

func TestExtendedHPAIsTheNativeOneAsTheExtendedKind(t *testing.T) {
	o := NewOptions()
	obj, err := extendedHPA(7, o)
	if err != nil {
		t.Fatal(err)
	}
	if obj.GetAPIVersion() != "autoscaling.kube-hpa.io/v2" || obj.GetKind() != "HorizontalPodAutoscaler" || obj.GetName() != workloadName(7) || obj.GetNamespace() != Namespace {
		t.Errorf("object = %s %s %s/%s", obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName())
	}
	metrics, _, _ := unstructured.NestedSlice(obj.Object, "spec", "metrics")
	name, _, _ := unstructured.NestedString(metrics[0].(map[string]any), "external", "metric", "name")
	if want := metricFor(7, o).name; name != want {
		t.Errorf("metric = %q, want %q", name, want)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "syncPeriodSeconds"); found {
		t.Error("the mix sets syncPeriodSeconds later, by a patch; the HPA starts without one")
	}
}

func TestWriteMixTable(t *testing.T) {
	phase := func(rate, cpu float64) Phase {
		return Phase{ReconcilesPerSecond: rate, CPUPer1000: cpu, TotalRequests: 1.5, FetchesPerReconcile: 0.5,
			RequestsPerReconcile: map[string]float64{"GET apps/deployments/scale": 1}}
	}
	res := &Result{
		ScenarioResult: ScenarioResult{Setup: Setup{HPAs: 1000, SyncPeriod: "15s"}},
		Mix:            &MixResult{FastHPAs: 100, FastPeriod: "2s", GatesOff: phase(66.7, 0.5), GatesOn: phase(66.7, 0.5), Mix: phase(110, 0.5)},
	}
	var b strings.Builder
	if err := WriteMixTable(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"reconciles/s the periods ask for",
		"66.7       66.7  110.0    1.00    1.65",
		"controller CPU s per 1,000 reconciles",
		"GET apps/deployments/scale",
		"HPA status writes per reconcile 0.000 0.000 0.000",
	} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), strings.Join(strings.Fields(line), " ")) {
			t.Errorf("table lacks %q:\n%s", line, b.String())
		}
	}
	var none strings.Builder
	if err := WriteMixTable(&none, &Result{}); err != nil || none.Len() != 0 {
		t.Errorf("a run without the mix wrote %q, %v", none.String(), err)
	}
}
