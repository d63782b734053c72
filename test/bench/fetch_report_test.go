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
)

func TestWriteFetchTables(t *testing.T) {
	distinct := ScenarioResult{
		Name:  ScenarioDistinct,
		Setup: Setup{HPAs: 1000, SyncPeriod: "15s", Window: "30s"},
		Controllers: []ControllerResult{
			{Name: Upstream, PassGaps: &PassGaps{Series: 1000, Gaps: 2000, MaxSeconds: 30, P99Seconds: 16.5, Unfetched: 3}},
			{Name: KubeHPA, PassGaps: &PassGaps{Series: 1000, Gaps: 2000, MaxSeconds: 15.6, P99Seconds: 15.3}},
		},
	}
	slow := ScenarioResult{
		Name:  ScenarioSlowTenants,
		Setup: Setup{HPAs: 1000, SyncPeriod: "15s", Window: "1m0s", WarmUpLimit: "1m30s", SlowHPAs: 50, SlowDelay: "30s", Workers: 5},
		Controllers: []ControllerResult{
			{Name: Upstream, WarmUp: WarmUp{Reconciles: 400}, Steady: Phase{SyncPeriod: "15s", ReconcilesPerSecond: 4},
				PassGaps: &PassGaps{Series: 950, PeriodShares: []float64{0.1, 0.05, 0.05, 0.04}, Unfetched: 800, MaxSeconds: 150, P99Seconds: 40, SlowFetches: 10}},
			{Name: KubeHPA, WarmUp: WarmUp{Seconds: 77, Complete: true}, Steady: Phase{SyncPeriod: "15s", ReconcilesPerSecond: 1000.0 / 15},
				PassGaps: &PassGaps{Series: 950, PeriodShares: []float64{1, 1, 1, 1}, MaxSeconds: 15.2, P99Seconds: 15.1, SlowFetches: 200}},
		},
	}
	tests := []struct {
		name             string
		write            func(*strings.Builder) error
		wanted, unwanted []string // regular expressions
	}{
		{
			name:  "pass gaps in seconds and in sync periods, with the ratio to upstream",
			write: func(b *strings.Builder) error { return WritePassGapTable(b, distinct) },
			wanted: []string{
				`^Pass gaps \(distinct-metrics\): .*steady window of 30s, sync period 15s\n\nfigure +upstream +kube-hpa +kube-hpa/upstream\n`,
				`\nlargest gap, s +30\.0 +15\.6 +0\.52\n`,
				`\nlargest gap, sync periods \(goal for kube-hpa: 1 and a small margin\) +2\.00 +1\.04 +0\.52\n`,
				`\np99 gap, sync periods +1\.10 +1\.02 +0\.93\n`,
				`\nmetrics without a fetch in the window +3 +0 +0\.00\n`,
				`fetch times of the 1000 metrics`,
			},
		},
		{
			name: "no pass gap table for a scenario that did not read the fetch times",
			write: func(b *strings.Builder) error {
				return WritePassGapTable(b, ScenarioResult{Controllers: []ControllerResult{{Name: Upstream}}})
			},
			unwanted: []string{`.`},
		},
		{
			name:  "the slow tenants' share of healthy HPAs reconciled per period, and the warm-up that did not end",
			write: func(b *strings.Builder) error { return WriteSlowTenantsTable(b, Machine{Cores: 2}, slow) },
			wanted: []string{
				`^Slow tenants \(slow-tenants\): 1000 HPAs, .* 50 of them answered by the adapter after 30s\n5 workers, sync period 15s, steady window 1m0s after a warm-up of at most 1m30s`,
				`\nhealthy HPAs reconciled per sync period, mean share \(goal 1\.00\) +0\.06 +1\.00 +16\.67\n`,
				`\n  lowest period +0\.04 +1\.00 +25\.00\n`,
				`\nhealthy HPAs without a fetch in the window +800 +0 +0\.00\n`,
				`\nfetches of the slow metrics begun in the window +10 +200 +20\.00\n`,
				`\nreconciles per HPA and sync period, all HPAs +0\.06 +1\.00 +16\.67\n`,
				`\nfirst pass over every HPA after start, s \(- = not in the warm-up\) +- +77 +-\n`,
				`note: upstream had reconciled 400 times for 1000 HPAs when the warm-up limit of 1m30s ended`,
			},
			unwanted: []string{`note: kube-hpa`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			checkTable(t, b.String(), tc.wanted, tc.unwanted)
		})
	}
}

func TestWriteReportWithTheNewTables(t *testing.T) {
	gaps := &PassGaps{Series: 10, PeriodShares: []float64{1}}
	with := func(name string) ScenarioResult {
		return ScenarioResult{Name: name, Setup: Setup{HPAs: 10, SyncPeriod: "15s"},
			Controllers: []ControllerResult{{Name: Upstream, PassGaps: gaps}, {Name: KubeHPA, PassGaps: gaps}}}
	}
	res := &Result{
		// The default scenario left out.
		Scenarios: []ScenarioResult{with(ScenarioDistinct), with(ScenarioSlowTenants)},
		Ramp:      &RampResult{SyncPeriod: "15s", Controllers: []RampController{{Name: Upstream}, {Name: KubeHPA}}},
	}
	var b strings.Builder
	if err := WriteReport(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	last := -1
	for _, heading := range []string{"(distinct-metrics)\n", "Pass gaps (distinct-metrics)", "Slow tenants (slow-tenants)", "Ramp (ramp)"} {
		at := strings.Index(out, heading)
		if at <= last {
			t.Fatalf("%q at %d, after %d: want the distinct table, its pass gaps, the slow tenants, then the ramp:\n%s", heading, at, last, out)
		}
		last = at
	}
	for _, unwanted := range []string{"(default)", "(slow-tenants)\n1", "Sync period mix"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("report has %q:\n%s", unwanted, out)
		}
	}
}
