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
	"math"
	"strings"
	"testing"
	"time"
)

func TestMetricMix(t *testing.T) {
	tests := []struct {
		name                       string
		hpas, latency, group       int
		distinctOnly, allShared    bool
		wantDistinct               int
		wantShared, wantUnique     int
		wantLatencyAlone, wantLatG int
	}{
		// 50 latency HPAs in 5 trials of 10: 5 alone and a group of 5 each;
		// 150 others: 75 shared in 8 groups of 10 (the last of 5), 75 unique.
		{name: "quick run", hpas: 200, latency: 50, group: 10, wantDistinct: 25 + 5 + 8 + 75,
			wantShared: 75, wantUnique: 75, wantLatencyAlone: 25, wantLatG: 25},
		{name: "no latency HPAs", hpas: 20, latency: 0, group: 5, wantDistinct: 2 + 10, wantShared: 10, wantUnique: 10},
		{name: "fewer latency HPAs than trials", hpas: 3, latency: 3, group: 1, wantDistinct: 3, wantLatencyAlone: 3},
		// Trials 0 and 1 have two members, one alone and one in a group.
		{name: "uneven trials", hpas: 7, latency: 7, group: 1, wantDistinct: 7, wantLatencyAlone: 5, wantLatG: 2},
		{name: "distinct metrics: no group, every HPA its own", hpas: 200, latency: 50, group: 10, distinctOnly: true,
			wantDistinct: 200, wantUnique: 150, wantLatencyAlone: 50},
		// 150 others in 15 groups of 10.
		{name: "all shared: every HPA but the latency ones in groups", hpas: 200, latency: 50, group: 10, allShared: true,
			wantDistinct: 25 + 5 + 15, wantShared: 150, wantLatencyAlone: 25, wantLatG: 25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.HPAs, o.LatencyHPAs, o.SharedGroupSize, o.DistinctMetrics, o.AllShared = tc.hpas, tc.latency, tc.group, tc.distinctOnly, tc.allShared
			var shared, unique, alone, grouped int
			for i := range o.HPAs {
				m := metricFor(i, o)
				switch {
				case m.latency && strings.HasPrefix(m.labelValue, "u"):
					alone++
				case m.latency:
					grouped++
				case m.name == metricShared:
					shared++
				default:
					unique++
				}
			}
			if shared != tc.wantShared || unique != tc.wantUnique || alone != tc.wantLatencyAlone || grouped != tc.wantLatG {
				t.Errorf("shared %d unique %d latency alone %d grouped %d", shared, unique, alone, grouped)
			}
			if got := distinctMetrics(o); got != tc.wantDistinct {
				t.Errorf("distinct metrics %d, want %d", got, tc.wantDistinct)
			}
		})
	}
}

// TestMetricsDataServesEveryHPA checks that the adapter's ConfigMap has a
// series for the selector of every HPA, at the value that keeps it steady.
func TestMetricsDataServesEveryHPA(t *testing.T) {
	o := NewOptions()
	o.HPAs, o.LatencyHPAs = 60, 10
	data := metricsData(o, latencyMetrics(o)...)
	for i := range o.HPAs {
		m := metricFor(i, o)
		value := `"100"`
		if m.latency {
			value = `"300"`
		}
		series := "- {value: " + value + ", labels: {" + m.labelKey + ": " + m.labelValue + "}}\n"
		if !strings.Contains(data["external."+m.name], series) {
			t.Errorf("HPA %d: no %q in %s", i, series, "external."+m.name)
		}
		h := hpa(i, o)
		if h.Spec.Metrics[0].External.Metric.Name != m.name || h.Spec.ScaleTargetRef.Name != deployment(i, o).Name {
			t.Errorf("HPA %d does not match its metric or Deployment", i)
		}
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name      string
		change    func(*Options)
		wantErr   string
		wantSatur time.Duration
	}{
		{name: "defaults", change: func(*Options) {}, wantSatur: 250 * time.Millisecond},
		{name: "a quick run", change: func(o *Options) { o.HPAs = 200 }, wantSatur: 50 * time.Millisecond},
		{name: "few HPAs saturate at 20ms", change: func(o *Options) { o.HPAs = 50; o.LatencyHPAs = 10 }, wantSatur: 20 * time.Millisecond},
		{name: "many HPAs at 1s", change: func(o *Options) { o.HPAs = 5000 }, wantSatur: time.Second},
		{name: "explicit", change: func(o *Options) { o.SaturationSyncPeriod = 3 * time.Second }, wantSatur: 3 * time.Second},
		{name: "more latency HPAs than HPAs", change: func(o *Options) { o.HPAs = 10 }, wantErr: "latency-hpas"},
		{name: "unknown controller", change: func(o *Options) { o.Controllers = []string{"kcm"} }, wantErr: "unknown controller"},
		{name: "zero window", change: func(o *Options) { o.Window = 0 }, wantErr: "window must be positive"},
		{name: "no extra scenario", change: func(o *Options) { o.DistinctHPAs, o.ThrottledHPAs = 0, 0 }, wantSatur: 250 * time.Millisecond},
		{name: "negative scenario size", change: func(o *Options) { o.DistinctHPAs = -1 }, wantErr: "must not be negative (0 skips)"},
		{name: "scenario smaller than its latency HPAs", change: func(o *Options) { o.ThrottledHPAs = 10 }, wantErr: "throttled-hpas must be 0 or at least latency-hpas"},
		{name: "throttled scenario without a limit", change: func(o *Options) { o.ThrottledQPS = 0 }, wantErr: "throttled-qps and throttled-burst must be positive"},
		{name: "throttled scenario without a window", change: func(o *Options) { o.ThrottledWindow = 0 }, wantErr: "throttled-window and throttled-warm-up-limit must be positive"},
		{name: "skipped throttled scenarios need no limits", change: func(o *Options) { o.ThrottledHPAs, o.ThrottledSharedHPAs, o.ThrottledQPS = 0, 0, 0 }, wantSatur: 250 * time.Millisecond},
		{name: "the shared throttled scenario alone needs the limits", change: func(o *Options) { o.ThrottledHPAs, o.ThrottledQPS = 0, 0 }, wantErr: "throttled-qps and throttled-burst must be positive"},
		{name: "distinct and shared only at once", change: func(o *Options) { o.DistinctMetrics, o.AllShared = true, true }, wantErr: "cannot have distinct metrics only and shared metrics only"},
		{name: "negative throttled-shared-hpas", change: func(o *Options) { o.ThrottledSharedHPAs = -1 }, wantErr: "must not be negative"},
		{name: "negative cpu-hpas", change: func(o *Options) { o.CPUHPAs = -1 }, wantErr: "must not be negative"},
		{name: "a CPU scenario smaller than its latency HPAs", change: func(o *Options) { o.CPUHPAs = 10 }, wantErr: "cpu-hpas must be 0 or at least latency-hpas"},
		{name: "a CPU workload has no External metrics to make distinct", change: func(o *Options) { o.CPUUtilization, o.DistinctMetrics = true, true }, wantErr: "no External metrics"},
		{name: "negative warm-up limit", change: func(o *Options) { o.WarmUpLimit = -time.Second }, wantErr: "warm-up-limit must not be negative"},
		{name: "every scenario off", change: func(o *Options) {
			o.DefaultScenario, o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs, o.Ramp = false, 0, 0, 0, 0, false
		}, wantErr: "nothing to measure"},
		{name: "the ramp alone", change: func(o *Options) {
			o.DefaultScenario, o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs = false, 0, 0, 0, 0
		}, wantSatur: 250 * time.Millisecond},
		{name: "a ramp held less than a period", change: func(o *Options) { o.RampHold = 10 * time.Second }, wantErr: "ramp-hold must be at least one sync period"},
		{name: "a ramp held less than a period, but no ramp", change: func(o *Options) { o.Ramp, o.RampHold = false, 0 }, wantSatur: 250 * time.Millisecond},
		{name: "every tenant slow", change: func(o *Options) { o.SlowTenants, o.SlowTenantShare = true, 1 }, wantErr: "slow-tenants-share between 0 and 1"},
		{name: "slow tenants answered at once", change: func(o *Options) { o.SlowTenants, o.SlowTenantDelay = true, 0 }, wantErr: "slow-tenants-delay must be positive"},
		{name: "slow tenants share out of range, but off", change: func(o *Options) { o.SlowTenantShare = 2 }, wantSatur: 250 * time.Millisecond},
		{name: "slow HPAs on shared metrics", change: func(o *Options) { o.SlowHPAs, o.SlowDelay = 5, time.Second }, wantErr: "slow HPAs need distinct metrics"},
		{name: "slow HPAs beside latency HPAs", change: func(o *Options) { o.DistinctMetrics, o.SlowHPAs, o.SlowDelay = true, 50, time.Second }, wantSatur: 250 * time.Millisecond},
		{name: "more slow HPAs than those that are not latency HPAs", change: func(o *Options) { o.DistinctMetrics, o.SlowHPAs, o.SlowDelay = true, 951, time.Second }, wantErr: "no more than the HPAs that are not latency HPAs (950)"},
		{name: "slow HPAs failing mid-run need no delay", change: func(o *Options) { o.DistinctMetrics, o.SlowHPAs, o.SlowMode = true, 50, SlowModeFlap }, wantSatur: 250 * time.Millisecond},
		{name: "slow tenants of every mode", change: func(o *Options) {
			o.SlowTenants, o.SlowTenantModes = true, []SlowTenantsMode{SlowModeDelay, SlowModeMidRun, SlowModeFlap}
		}, wantSatur: 250 * time.Millisecond},
		{name: "slow tenants without a mode", change: func(o *Options) { o.SlowTenants, o.SlowTenantModes = true, nil }, wantErr: "at least one mode"},
		{name: "an unknown slow tenants mode", change: func(o *Options) { o.SlowTenants, o.SlowTenantModes = true, []SlowTenantsMode{"hang"} }, wantErr: `slow-tenants-mode "hang"`},
		{name: "a fallback sooner than the API allows", change: func(o *Options) {
			o.SlowTenants, o.SlowTenantModes, o.SlowTenantFallbackAfter = true, []SlowTenantsMode{SlowModeMidRun}, 2*time.Minute
		}, wantErr: "slow-tenants-fallback-after must be whole seconds from 3m to 24h"},
		{name: "a fallback after a fraction of a second", change: func(o *Options) {
			o.SlowTenants, o.SlowTenantModes, o.SlowTenantFallbackAfter = true, []SlowTenantsMode{SlowModeFlap}, 3*time.Minute+time.Second/2
		}, wantErr: "slow-tenants-fallback-after must be whole seconds"},
		{name: "no fallback in the delay mode, so no bound on it", change: func(o *Options) { o.SlowTenants, o.SlowTenantFallbackAfter = true, 0 }, wantSatur: 250 * time.Millisecond},
		{name: "a negative flap period", change: func(o *Options) {
			o.SlowTenants, o.SlowTenantModes, o.SlowTenantFlapPeriod = true, []SlowTenantsMode{SlowModeFlap}, -time.Second
		}, wantErr: "slow-tenants-flap-period must not be negative"},
		{name: "slow and latency HPAs that do not fit in the scenario", change: func(o *Options) {
			o.SlowTenants, o.SlowTenantModes, o.SlowTenantHPAs, o.SlowTenantShare = true, []SlowTenantsMode{SlowModeMidRun}, 60, 0.5
		}, wantErr: "the 30 slow HPAs and 50 latency HPAs do not fit in slow-tenants-hpas (60)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			tc.change(&o)
			err := o.Validate()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := o.saturationSyncPeriod(); got != tc.wantSatur {
				t.Errorf("saturation sync period %v, want %v", got, tc.wantSatur)
			}
		})
	}
}

func TestCPUWorkload(t *testing.T) {
	o := NewOptions()
	o.HPAs, o.LatencyHPAs, o.CPUUtilization = 60, 10, true
	for i := range o.HPAs {
		h, d := hpa(i, o), deployment(i, o)
		m := h.Spec.Metrics
		if len(m) != 1 || m[0].Resource == nil || m[0].Resource.Name != "cpu" || *m[0].Resource.Target.AverageUtilization != cpuTargetPercent {
			t.Fatalf("HPA %d: metrics %+v, want CPU utilization at %d%%", i, m, cpuTargetPercent)
		}
		if got := d.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().MilliValue(); got != cpuRequestMilli {
			t.Fatalf("Deployment %d requests %dm of CPU, want %dm", i, got, cpuRequestMilli)
		}
	}
	if data := metricsData(o, latencyMetrics(o)...); len(data) != 0 {
		t.Errorf("the adapter serves %d metrics to a CPU workload, want none", len(data))
	}
	if s := o.setup(); s.MetricsAPI != "metrics.k8s.io" || s.IdealFetchesPerReconcile != 1 {
		t.Errorf("setup %+v: want metrics.k8s.io, one PodMetrics list per reconcile", s)
	}
}

// TestRaisedCPUAsksForTheLatencyReplicas checks, for each pod count, that
// the raised usage asks for Options.latencyReplicas on the first pass, as
// upstream computes it (the ceiling of the pods times the utilization
// ratio), and that once the new pods run idle (1m each) the HPA holds
// there: the ratio over all pods is within the 10% tolerance.
func TestRaisedCPUAsksForTheLatencyReplicas(t *testing.T) {
	for pods := 1; pods <= 10; pods++ {
		o := NewOptions()
		o.PodsPerHPA = pods
		u := o.raisedCPUMilli()
		target := float64(cpuRequestMilli * cpuTargetPercent / 100)
		want := o.latencyReplicas()
		if got := int32(math.Ceil(float64(pods) * float64(u) / target)); got != want {
			t.Errorf("%d pods at %dm ask for %d, want %d", pods, u, got, want)
		}
		total := float64(int64(pods)*u + int64(want) - int64(pods))
		if ratio := total / float64(want) / target; math.Abs(ratio-1) > 0.1 {
			t.Errorf("%d pods at %dm and %d idle: ratio %.3f, outside the tolerance", pods, u, want-int32(pods), ratio)
		}
	}
}

func TestResourceMetricsFetches(t *testing.T) {
	page := `# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="metrics.k8s.io",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1beta1"} 40
apiserver_request_total{code="200",component="apiserver",dry_run="",group="metrics.k8s.io",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1beta1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="metrics.k8s.io",resource="nodes",scope="cluster",subresource="",verb="LIST",version="v1beta1"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 9
`
	got, err := resourceMetricsFetches(page)
	if err != nil || got != 42 {
		t.Errorf("got %v, %v; want the 42 PodMetrics lists", got, err)
	}
}
