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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestScenarios(t *testing.T) {
	// summary is what sets a scenario apart.
	type summary struct {
		Name                                       string
		HPAs, Burst                                int
		QPS                                        float64
		Distinct, Shared, Mix, Latency, Saturation bool
		WarmUpLimit, Window                        time.Duration
		FetchTimes                                 bool
		SlowHPAs                                   int
		CPU                                        bool
	}
	defaults := summary{Name: ScenarioDefault, HPAs: 1000, QPS: 2000, Burst: 4000, Mix: true, Latency: true, Saturation: true, Window: 30 * time.Second}
	tests := []struct {
		name   string
		change func(*Options)
		want   []summary
	}{
		{
			name:   "make bench: the default, distinct metrics, then 2,000 HPAs at 20 QPS, steady only, warm-up bounded, with the default mix and all shared, then CPU utilization",
			change: func(*Options) {},
			want: []summary{
				defaults,
				{Name: ScenarioDistinct, HPAs: 1000, QPS: 2000, Burst: 4000, Distinct: true, Latency: true, Saturation: true, Window: 30 * time.Second, FetchTimes: true},
				{Name: ScenarioThrottled, HPAs: 2000, QPS: 20, Burst: 30, WarmUpLimit: 150 * time.Second, Window: time.Minute},
				{Name: ScenarioThrottledShared, HPAs: 2000, QPS: 20, Burst: 30, Shared: true, WarmUpLimit: 150 * time.Second, Window: time.Minute},
				{Name: ScenarioCPU, HPAs: 500, QPS: 2000, Burst: 4000, Latency: true, Saturation: true, Window: 30 * time.Second, CPU: true},
			},
		},
		{
			name:   "the extra scenarios skipped",
			change: func(o *Options) { o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs = 0, 0, 0, 0 },
			want:   []summary{defaults},
		},
		{
			name: "the new measurements alone: the default left out, distinct metrics steady only, then the slow tenants",
			change: func(o *Options) {
				o.DefaultScenario, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs, o.SkipLatency, o.SkipSaturation, o.SlowTenants = false, 0, 0, 0, true, true, true
			},
			want: []summary{
				{Name: ScenarioDistinct, HPAs: 1000, QPS: 2000, Burst: 4000, Distinct: true, Window: 30 * time.Second, FetchTimes: true},
				{Name: ScenarioSlowTenants, HPAs: 1000, QPS: 2000, Burst: 4000, Distinct: true, WarmUpLimit: slowTenantWarmUpLimit, Window: time.Minute, FetchTimes: true, SlowHPAs: 50},
			},
		},
		{
			name: "the slow tenants in every mode, each a scenario of its own; the modes that fail mid-run time the latency too",
			change: func(o *Options) {
				o.DefaultScenario, o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs, o.Ramp = false, 0, 0, 0, 0, false
				o.SlowTenants, o.SlowTenantModes = true, []SlowTenantsMode{SlowModeDelay, SlowModeMidRun, SlowModeFlap}
			},
			want: []summary{
				{Name: ScenarioSlowTenants, HPAs: 1000, QPS: 2000, Burst: 4000, Distinct: true, WarmUpLimit: slowTenantWarmUpLimit, Window: time.Minute, FetchTimes: true, SlowHPAs: 50},
				{Name: "slow-tenants-mid-run", HPAs: 1000, QPS: 2000, Burst: 4000, Distinct: true, Latency: true, WarmUpLimit: slowTenantWarmUpLimit, Window: time.Minute, FetchTimes: true, SlowHPAs: 50},
				{Name: "slow-tenants-flap", HPAs: 1000, QPS: 2000, Burst: 4000, Distinct: true, Latency: true, WarmUpLimit: slowTenantWarmUpLimit, Window: time.Minute, FetchTimes: true, SlowHPAs: 50},
			},
		},
		{
			name: "the ramp alone is no scenario of its own workload",
			change: func(o *Options) {
				o.DefaultScenario, o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs = false, 0, 0, 0, 0
			},
		},
		{
			name: "the CPU scenario alone, with its own size",
			change: func(o *Options) {
				o.DefaultScenario, o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs, o.Ramp = false, 0, 0, 0, 200, false
			},
			want: []summary{{Name: ScenarioCPU, HPAs: 200, QPS: 2000, Burst: 4000, Latency: true, Saturation: true, Window: 30 * time.Second, CPU: true}},
		},
		{
			name: "a quick run keeps its own sizes and flags",
			change: func(o *Options) {
				o.HPAs, o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs, o.SyncPeriodMix = 200, 0, 300, 0, 0, false
				o.ThrottledQPS, o.ThrottledBurst, o.ThrottledWindow, o.ThrottledWarmUpLimit = 5, 10, 20*time.Second, 40*time.Second
			},
			want: []summary{
				{Name: ScenarioDefault, HPAs: 200, QPS: 2000, Burst: 4000, Latency: true, Saturation: true, Window: 30 * time.Second},
				{Name: ScenarioThrottled, HPAs: 300, QPS: 5, Burst: 10, WarmUpLimit: 40 * time.Second, Window: 20 * time.Second},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			tc.change(&o)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			var got []summary
			for _, sc := range o.scenarios() {
				so := sc.opts
				if so.DistinctHPAs != 0 || so.ThrottledHPAs != 0 || so.ThrottledSharedHPAs != 0 || so.CPUHPAs != 0 || so.SlowTenants || so.Ramp || !so.DefaultScenario {
					t.Errorf("scenario %s would nest scenarios", sc.name)
				}
				got = append(got, summary{Name: sc.name, HPAs: so.HPAs, QPS: so.QPS, Burst: so.Burst, Distinct: so.DistinctMetrics, Shared: so.AllShared,
					Mix: so.SyncPeriodMix, Latency: !so.SkipLatency, Saturation: !so.SkipSaturation, WarmUpLimit: so.WarmUpLimit, Window: so.Window,
					FetchTimes: so.FetchTimes, SlowHPAs: so.SlowHPAs, CPU: so.CPUUtilization})
				if err := so.Validate(); err != nil {
					t.Errorf("scenario %s: %v", sc.name, err)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scenarios (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetupOfAScenario(t *testing.T) {
	o := NewOptions()
	scs := o.scenarios()
	throttled := scs[len(scs)-2].opts.setup()
	if throttled.Saturation || throttled.Latency || throttled.SaturationSyncPeriod != "" || throttled.WarmUpLimit != "2m30s" || throttled.Window != "1m0s" {
		t.Errorf("throttled setup %+v", throttled)
	}
	distinct := scs[1].opts.setup()
	if !distinct.DistinctOnly || distinct.DistinctMetrics != distinct.HPAs || distinct.IdealFetchesPerReconcile != 1 {
		t.Errorf("distinct setup %+v: want one metric per HPA", distinct)
	}
}

func TestMetricsAPIFlagsFollowTheRunsLimits(t *testing.T) {
	cases := []struct {
		name      string
		qps       float64
		burst     int
		wantFlags []string
	}{
		{name: "at the default client limits kube-hpa keeps its metrics defaults", qps: 20, burst: 30},
		{name: "an unthrottled run lifts the metrics limits to its own", qps: 2000, burst: 4000,
			wantFlags: []string{"--metrics-api-qps=2000", "--metrics-api-burst=4000"}},
		{name: "a limit between the two keeps the larger of each", qps: 150, burst: 1000,
			wantFlags: []string{"--metrics-api-qps=200", "--metrics-api-burst=1000"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.QPS, o.Burst = tc.qps, tc.burst
			if got := o.metricsAPIFlags(); !slices.Equal(got, tc.wantFlags) {
				t.Errorf("flags %v, want %v", got, tc.wantFlags)
			}
		})
	}
}
