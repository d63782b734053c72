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

func TestParseSlowTenantsModes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []SlowTenantsMode
		wantErr string
	}{
		{name: "the default mode alone", in: "delay", want: []SlowTenantsMode{SlowModeDelay}},
		{name: "several modes in the order given, spaces ignored", in: "flap, mid-run", want: []SlowTenantsMode{SlowModeFlap, SlowModeMidRun}},
		{name: "an unknown mode names the known ones", in: "delay,hang", wantErr: `mode "hang": want one of delay,mid-run,flap`},
		{name: "a mode given twice would measure it twice", in: "flap,flap", wantErr: `"flap" given twice`},
		{name: "an empty list names no mode", in: "", wantErr: `mode ""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSlowTenantsModes(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("modes %v, want %v", got, tc.want)
			}
			if again, err := ParseSlowTenantsModes(FormatSlowTenantsModes(got)); err != nil || !slices.Equal(again, got) {
				t.Errorf("formatted and parsed again: %v, %v", again, err)
			}
		})
	}
}

func TestSlowTenantsModeScenarios(t *testing.T) {
	tests := []struct {
		mode         SlowTenantsMode
		wantScenario string
		wantFails    bool
	}{
		{mode: SlowModeDelay, wantScenario: ScenarioSlowTenants},
		{mode: "", wantScenario: ScenarioSlowTenants},
		{mode: SlowModeMidRun, wantScenario: ScenarioSlowTenants + "-mid-run", wantFails: true},
		{mode: SlowModeFlap, wantScenario: ScenarioSlowTenants + "-flap", wantFails: true},
	}
	for _, tc := range tests {
		t.Run("mode "+string(tc.mode)+" is scenario "+tc.wantScenario, func(t *testing.T) {
			if got := tc.mode.scenarioName(); got != tc.wantScenario {
				t.Errorf("scenario %q, want %q", got, tc.wantScenario)
			}
			if !isSlowTenantsScenario(tc.mode.scenarioName()) {
				t.Errorf("%q is not recognized as a slow-tenants scenario", tc.mode.scenarioName())
			}
			if got := tc.mode.failsMidRun(); got != tc.wantFails {
				t.Errorf("fails mid-run %t, want %t", got, tc.wantFails)
			}
		})
	}
	for _, other := range []string{ScenarioDistinct, "slow", "slow-tenantsx"} {
		if isSlowTenantsScenario(other) {
			t.Errorf("%q taken for a slow-tenants scenario", other)
		}
	}
}

func TestFlapAt(t *testing.T) {
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	period := 15 * time.Second
	tests := []struct {
		name      string
		at        time.Duration // after start
		wantFault string
		wantNext  time.Duration // after start
	}{
		{name: "fast errors first, at the start", at: 0, wantFault: faultError, wantNext: period},
		{name: "still errors just before the first change", at: period - time.Millisecond, wantFault: faultError, wantNext: period},
		{name: "hangs from the first change on", at: period, wantFault: faultHang, wantNext: 2 * period},
		{name: "errors again in the third period", at: 2*period + period/2, wantFault: faultError, wantNext: 3 * period},
		{name: "hangs in every even-numbered period", at: 7 * period, wantFault: faultHang, wantNext: 8 * period},
		{name: "a time before the start is the first period's", at: -time.Second, wantFault: faultError, wantNext: period},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fault, next := flapAt(start, start.Add(tc.at), period)
			if fault != tc.wantFault || !next.Equal(start.Add(tc.wantNext)) {
				t.Errorf("fault %q, next change at +%v; want %q at +%v", fault, next.Sub(start), tc.wantFault, tc.wantNext)
			}
		})
	}
}

func TestFlapPeriodDefaultsToTheSyncPeriod(t *testing.T) {
	o := NewOptions()
	if got := o.flapPeriod(); got != o.SyncPeriod {
		t.Errorf("flap period %v, want the sync period %v", got, o.SyncPeriod)
	}
	o.FlapPeriod = 4 * time.Second
	if got := o.flapPeriod(); got != 4*time.Second {
		t.Errorf("flap period %v, want the one set, 4s", got)
	}
}

func TestSlowMetricConfigMapValue(t *testing.T) {
	base := NewOptions()
	base.HPAs, base.LatencyHPAs, base.DistinctMetrics, base.SlowHPAs, base.SlowDelay = 20, 0, true, 2, 30*time.Second
	tests := []struct {
		name       string
		mode       SlowTenantsMode
		fault      string
		wantPrefix string
	}{
		{name: "the delay mode holds every answer from the start", mode: SlowModeDelay, wantPrefix: "delay: 30s\nseries:\n"},
		{name: "the mid-run mode answers fast until it fails", mode: SlowModeMidRun, wantPrefix: "series:\n"},
		{name: "a hang keeps the series, so that only the fault changes", mode: SlowModeMidRun, fault: faultHang, wantPrefix: "fault: hang\nseries:\n"},
		{name: "a flap's fast error keeps the series too", mode: SlowModeFlap, fault: faultError, wantPrefix: "fault: error\nseries:\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			o.SlowMode = tc.mode
			value := withFault(metricsData(o)["external."+metricSlow], tc.fault)
			if !strings.HasPrefix(value, tc.wantPrefix) {
				t.Errorf("value %q, want it to start with %q", value, tc.wantPrefix)
			}
			if got := strings.Count(value, "- {value"); got != o.SlowHPAs {
				t.Errorf("%d series, want one per slow HPA (%d)", got, o.SlowHPAs)
			}
		})
	}
}
