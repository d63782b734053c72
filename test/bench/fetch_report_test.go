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
	midRun := ScenarioResult{
		Name: "slow-tenants-mid-run",
		Setup: Setup{HPAs: 1000, LatencyHPAs: 50, Latency: true, SyncPeriod: "15s", Window: "1m0s", WarmUpLimit: "1m30s", SlowHPAs: 50,
			SlowMode: "mid-run", FallbackAfter: "3m0s", Workers: 5},
		Controllers: []ControllerResult{
			{Name: Upstream, WarmUp: WarmUp{Seconds: 3, Complete: true}, Steady: Phase{SyncPeriod: "15s", ReconcilesPerSecond: 10},
				PassGaps:   &PassGaps{Series: 950, PeriodShares: []float64{0.5, 0.3, 0.1, 0.1}},
				Latency:    Latency{Measured: 20, Missed: 30, P50: 40, P99: 70},
				SlowFaults: &SlowFaults{LatencyBefore: Latency{Measured: 50, P50: 8, P99: 15}}},
			{Name: KubeHPA, WarmUp: WarmUp{Seconds: 2, Complete: true}, Steady: Phase{SyncPeriod: "15s", ReconcilesPerSecond: 1000.0 / 15},
				PassGaps:   &PassGaps{Series: 950, PeriodShares: []float64{1, 1, 1, 1}},
				Latency:    Latency{Measured: 50, P50: 8.5, P99: 16},
				SlowFaults: &SlowFaults{LatencyBefore: Latency{Measured: 50, P50: 8, P99: 15.5}, FallbackLateness: &Latency{Measured: 48, Missed: 2, P50: 6.2, Max: 14.9}}},
		},
	}
	flap := midRun
	flap.Name, flap.Setup.SlowMode, flap.Setup.FlapPeriod, flap.Setup.Latency = "slow-tenants-flap", "flap", "15s", false
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
			unwanted: []string{`note: kube-hpa`, `(?i)fallback`, `before the failures`},
		},
		{
			name:  "a provider hanging mid-run: the healthy HPAs' latency before and after, and the slow HPAs' fallback lateness, none for upstream",
			write: func(b *strings.Builder) error { return WriteSlowTenantsTable(b, Machine{Cores: 2}, midRun) },
			wanted: []string{
				`^Slow tenants \(slow-tenants-mid-run\): 1000 HPAs, .* 50 of them answered fast until the steady window, then hanging; kube-hpa's slow HPAs have a fallback after 3m0s, upstream has none\n`,
				`\nhealthy HPAs reconciled per sync period, mean share \(goal 1\.00\) +0\.25 +1\.00 +4\.00\n`,
				`\nhealthy HPAs' metric change to scale, p50 s, before the failures \(50 HPAs, 5 changes per period\) +8\.00 +8\.00 +1\.00\n  after the failures began +40\.00 +8\.50 +0\.21\n`,
				`\nhealthy HPAs' metric change to scale, p99 s, before the failures +15\.00 +15\.50 +1\.03\n  after the failures began +70\.00 +16\.00 +0\.23\n`,
				`\n  after over before \(goal at most 1\.10\) +4\.67 +1\.03 +0\.22\n`,
				`\nhealthy HPAs not scaled within the latency time-out, before the failures +0 +0 +-\n  after the failures began +30 +0 +0\.00\n`,
				`\nslow HPAs' fallback lateness, p50 s \(due 3m0s after the failures began; - = no fallback\) +- +6\.2 +-\n  max s +- +14\.9 +-\n`,
				`\nslow HPAs whose fallback was not seen within the wait +- +2 +-\n`,
				`\nLatency: the latency HPAs' metrics raised by 2 replicas in 5 changes spread over one sync period`,
				`\nFallback lateness: from when a slow HPA's fallback was due \(the failures' start plus 3m0s\)`,
			},
			unwanted: []string{`note:`},
		},
		{
			name:  "a flapping provider without latency HPAs: its period in the title, the fallback rows alone",
			write: func(b *strings.Builder) error { return WriteSlowTenantsTable(b, Machine{Cores: 2}, flap) },
			wanted: []string{
				`^Slow tenants \(slow-tenants-flap\): .* 50 of them answered fast until the steady window, then in turn failing fast and hanging, 15s each; kube-hpa's slow HPAs have a fallback after 3m0s`,
				`\nslow HPAs' fallback lateness, p50 s \(due 3m0s after the failures began; - = no fallback\) +- +6\.2 +-\n`,
			},
			unwanted: []string{`metric change to scale`, `\nLatency:`},
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
		Scenarios: []ScenarioResult{with(ScenarioDistinct), with(ScenarioSlowTenants), with(SlowModeFlap.scenarioName())},
		Ramp:      &RampResult{SyncPeriod: "15s", Controllers: []RampController{{Name: Upstream}, {Name: KubeHPA}}},
	}
	var b strings.Builder
	if err := WriteReport(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	last := -1
	for _, heading := range []string{"(distinct-metrics)\n", "Pass gaps (distinct-metrics)", "Slow tenants (slow-tenants)", "Slow tenants (slow-tenants-flap)", "Ramp (ramp)"} {
		at := strings.Index(out, heading)
		if at <= last {
			t.Fatalf("%q at %d, after %d: want the distinct table, its pass gaps, the slow tenants of each mode, then the ramp:\n%s", heading, at, last, out)
		}
		last = at
	}
	for _, unwanted := range []string{"(default)", "(slow-tenants)\n1", "(slow-tenants-flap)\n1", "Pass gaps (slow-tenants", "Sync period mix"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("report has %q:\n%s", unwanted, out)
		}
	}
}
