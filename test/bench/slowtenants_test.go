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
)

func TestSlowHPAsAreSpreadOverTheHPAs(t *testing.T) {
	tests := []struct {
		name       string
		hpas, slow int
		wantSlow   []int
	}{
		{name: "one in twenty, the last of each run of twenty", hpas: 100, slow: 5, wantSlow: []int{19, 39, 59, 79, 99}},
		{name: "a remainder of HPAs after the last run stays healthy", hpas: 11, slow: 3, wantSlow: []int{2, 5, 8}},
		{name: "no slow HPA", hpas: 10, slow: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.HPAs, o.SlowHPAs, o.LatencyHPAs, o.DistinctMetrics, o.SlowDelay = tc.hpas, tc.slow, 0, true, time.Second
			var got []int
			for i := range o.HPAs {
				if slowHPA(i, o) {
					got = append(got, i)
					if m := metricFor(i, o); m.name != metricSlow || m.labelValue != workloadName(i) {
						t.Errorf("slow HPA %d has metric %+v", i, m)
					}
				} else if m := metricFor(i, o); m.name != metricUnique {
					t.Errorf("healthy HPA %d has metric %+v", i, m)
				}
			}
			if len(got) != len(tc.wantSlow) || (len(got) > 0 && got[len(got)-1] != tc.wantSlow[len(tc.wantSlow)-1]) {
				t.Errorf("slow HPAs %v, want %v", got, tc.wantSlow)
			}
			for i := range tc.wantSlow {
				if i < len(got) && got[i] != tc.wantSlow[i] {
					t.Errorf("slow HPAs %v, want %v", got, tc.wantSlow)
					break
				}
			}
			healthy, slow := fetchSeries(o)
			if len(slow) != tc.slow || len(healthy) != tc.hpas-tc.slow {
				t.Errorf("%d healthy and %d slow series, want %d and %d", len(healthy), len(slow), tc.hpas-tc.slow, tc.slow)
			}
		})
	}
}

func TestSlowTenantsScenario(t *testing.T) {
	o := NewOptions()
	o.SlowTenants = true
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	scs := o.scenarios()
	sc := scs[len(scs)-1]
	if sc.name != ScenarioSlowTenants {
		t.Fatalf("last scenario %s, want %s", sc.name, ScenarioSlowTenants)
	}
	so := sc.opts
	if err := so.Validate(); err != nil {
		t.Fatal(err)
	}
	if so.HPAs != 1000 || so.SlowHPAs != 50 || so.SlowDelay != 30*time.Second || so.LatencyHPAs != 0 || !so.DistinctMetrics || !so.FetchTimes ||
		!so.SkipLatency || !so.SkipSaturation || so.Window != time.Minute || so.WarmUpLimit != slowTenantWarmUpLimit || so.SyncPeriodMix {
		t.Errorf("slow-tenants options %+v", so)
	}
	if s := so.setup(); s.SlowHPAs != 50 || s.SlowDelay != "30s" || s.DistinctMetrics != 1000 {
		t.Errorf("setup %+v", s)
	}
	// The adapter holds every answer of the slow metric, and of it only.
	data := metricsData(so)
	if !strings.HasPrefix(data["external."+metricSlow], "delay: 30s\nseries:\n") || strings.Contains(data["external."+metricUnique], "delay") {
		t.Errorf("ConfigMap data: slow %q, unique starts %q", data["external."+metricSlow], data["external."+metricUnique][:40])
	}
	if got := strings.Count(data["external."+metricSlow], "- {value"); got != 50 {
		t.Errorf("%d slow series, want 50", got)
	}
}
