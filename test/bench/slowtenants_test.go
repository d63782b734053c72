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
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSlowHPAsAreSpreadOverTheHPAs(t *testing.T) {
	tests := []struct {
		name                string
		hpas, latency, slow int
		wantSlow            []int
	}{
		{name: "one in twenty, the last of each run of twenty", hpas: 100, slow: 5, wantSlow: []int{19, 39, 59, 79, 99}},
		{name: "a remainder of HPAs after the last run stays healthy", hpas: 11, slow: 3, wantSlow: []int{2, 5, 8}},
		{name: "no slow HPA", hpas: 10, slow: 0},
		{name: "the latency HPAs first are never slow; the runs start after them", hpas: 60, latency: 10, slow: 5, wantSlow: []int{19, 29, 39, 49, 59}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.HPAs, o.SlowHPAs, o.LatencyHPAs, o.DistinctMetrics, o.SlowDelay = tc.hpas, tc.slow, tc.latency, true, time.Second
			var got []int
			for i := range o.HPAs {
				if slowHPA(i, o) {
					got = append(got, i)
					if m := metricFor(i, o); m.name != metricSlow || m.labelValue != workloadName(i) {
						t.Errorf("slow HPA %d has metric %+v", i, m)
					}
				} else if m := metricFor(i, o); m.name != metricUnique && !m.latency {
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
			if got := slowHPAIndexes(o); !slices.Equal(got, tc.wantSlow) {
				t.Errorf("slow HPA indexes %v, want %v", got, tc.wantSlow)
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

func TestSlowTenantsScenarioOfAModeThatFailsMidRun(t *testing.T) {
	for _, mode := range []SlowTenantsMode{SlowModeMidRun, SlowModeFlap} {
		t.Run(string(mode)+" keeps the latency HPAs, asks kube-hpa for the fallback and holds no answer back", func(t *testing.T) {
			o := NewOptions()
			o.SlowTenants, o.SlowTenantModes, o.KubeHPAFlags = true, []SlowTenantsMode{mode}, []string{"--v=2"}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			scs := o.scenarios()
			sc := scs[len(scs)-1]
			so := sc.opts
			if sc.name != mode.scenarioName() {
				t.Fatalf("last scenario %s, want %s", sc.name, mode.scenarioName())
			}
			if err := so.Validate(); err != nil {
				t.Fatal(err)
			}
			if so.SlowMode != mode || so.LatencyHPAs != o.LatencyHPAs || so.SkipLatency || !so.SkipSaturation || so.SlowHPAs != 50 ||
				so.SlowDelay != 0 || so.FallbackAfter != o.SlowTenantFallbackAfter || so.FlapPeriod != o.SlowTenantFlapPeriod {
				t.Errorf("%s options %+v", mode, so)
			}
			if want := []string{"--v=2", fallbackGate}; !slices.Equal(so.KubeHPAFlags, want) {
				t.Errorf("kube-hpa flags %v, want %v", so.KubeHPAFlags, want)
			}
			if len(o.KubeHPAFlags) != 1 {
				t.Errorf("the scenario changed the run's kube-hpa flags: %v", o.KubeHPAFlags)
			}
			// The latency phase runs twice, each raising by latencyStep.
			if got, want := so.latencyPods(), 2*so.LatencyHPAs*latencyStep; got != want {
				t.Errorf("latency pods %d, want %d", got, want)
			}
			s := so.setup()
			if s.SlowMode != string(mode) || s.SlowDelay != "" || s.FallbackAfter != "3m0s" || !s.Latency {
				t.Errorf("setup %+v", s)
			}
			if wantFlap := map[SlowTenantsMode]string{SlowModeFlap: "15s"}[mode]; s.FlapPeriod != wantFlap {
				t.Errorf("setup's flap period %q, want %q", s.FlapPeriod, wantFlap)
			}
			if strings.Contains(metricsData(so)["external."+metricSlow], "delay") {
				t.Errorf("the slow metric is held back before the window: %q", metricsData(so)["external."+metricSlow][:40])
			}
		})
	}
}
