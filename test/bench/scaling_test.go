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
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseSizes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []int
		wantErr bool
	}{
		{name: "the default sizes", in: "1000,5000,10000", want: []int{1000, 5000, 10000}},
		{name: "spaces around a size are ignored", in: " 100 , 200", want: []int{100, 200}},
		{name: "one size", in: "300", want: []int{300}},
		{name: "the order is kept for validation to judge", in: "200,100", want: []int{200, 100}},
		{name: "an empty list is no size", in: "", wantErr: true},
		{name: "an empty field is no size", in: "100,,200", wantErr: true},
		{name: "zero HPAs is no size", in: "0,100", wantErr: true},
		{name: "a negative size", in: "-5", wantErr: true},
		{name: "a size in another notation", in: "1e3", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSizes(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseSizes(%q) error %v, want an error: %v", tc.in, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseSizes(%q) (-want +got):\n%s", tc.in, diff)
			}
			if err == nil && FormatSizes(got) != strings.ReplaceAll(tc.in, " ", "") {
				t.Errorf("FormatSizes(%v) = %q, want what was parsed", got, FormatSizes(got))
			}
		})
	}
}

func TestScalingOptions(t *testing.T) {
	scalingAlone := func(o *Options) {
		o.Scaling = true
		o.DefaultScenario, o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.Ramp = false, 0, 0, 0, false
	}
	tests := []struct {
		name    string
		change  func(*Options)
		wantErr string
	}{
		{name: "off by default with valid sizes", change: func(*Options) {}},
		{name: "the defaults with every other scenario", change: func(o *Options) { o.Scaling = true }},
		{name: "the scaling scenario alone is something to measure", change: scalingAlone},
		{name: "a quick run of small sizes", change: func(o *Options) { scalingAlone(o); o.ScalingSizes = []int{100, 200} }},
		{name: "no pods in a Deployment", change: func(o *Options) { scalingAlone(o); o.ScalingPodsPerHPA = 0 }, wantErr: "scaling-pods-per-hpa must be at least 1"},
		{name: "no size", change: func(o *Options) { scalingAlone(o); o.ScalingSizes = nil }, wantErr: "scaling-sizes must list at least one size"},
		{name: "sizes out of order", change: func(o *Options) { scalingAlone(o); o.ScalingSizes = []int{5000, 1000} }, wantErr: "scaling-sizes must be ascending, got 5000,1000"},
		{name: "a size twice", change: func(o *Options) { scalingAlone(o); o.ScalingSizes = []int{1000, 1000} }, wantErr: "must be ascending"},
		{name: "a size below the latency HPAs, which are its first", change: func(o *Options) { scalingAlone(o); o.ScalingSizes = []int{20, 100} },
			wantErr: "at least latency-hpas (50), got 20"},
		{name: "a size below the latency HPAs is fine without them", change: func(o *Options) {
			scalingAlone(o)
			o.ScalingSizes, o.LatencyHPAs, o.HPAs = []int{20, 100}, 0, 100
		}},
		{name: "bad sizes are not judged with the scenario off", change: func(o *Options) { o.ScalingSizes, o.ScalingPodsPerHPA = []int{3, 1}, 0 }},
		{name: "two and three sharded replicas", change: func(o *Options) { scalingAlone(o); o.ScalingReplicas = []int{2, 3} }},
		{name: "as many sharded replicas as shards", change: func(o *Options) { scalingAlone(o); o.ScalingReplicas = []int{16} }},
		{name: "one replica is kube-hpa itself", change: func(o *Options) { scalingAlone(o); o.ScalingReplicas = []int{1} },
			wantErr: "scaling-replicas must be from 2 to 16, got 1"},
		{name: "more replicas than shards would idle", change: func(o *Options) { scalingAlone(o); o.ScalingReplicas = []int{2, 17} }, wantErr: "got 17"},
		{name: "the sizes spread over namespaces", change: func(o *Options) { scalingAlone(o); o.ScalingNamespaces = 50 }},
		{name: "more namespaces than the smallest size has HPAs", change: func(o *Options) { scalingAlone(o); o.ScalingSizes, o.ScalingNamespaces = []int{100}, 101 },
			wantErr: "scaling-namespaces must be from 0 to the smallest size, got 101"},
		{name: "negative pods per HPA", change: func(o *Options) { o.PodsPerHPA = -1 }, wantErr: "must not be negative (0 keeps the default)"},
		{name: "negative cluster client limits", change: func(o *Options) { o.ClusterClientQPS = -1 }, wantErr: "must not be negative (0 keeps the default)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			tc.change(&o)
			err := o.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}

func TestScalingScenarios(t *testing.T) {
	// summary is what sets a size apart, and what every size shares.
	type summary struct {
		HPAs, PodsPerHPA, LatencyHPAs, Workers int
		QPS                                    float64
		Latency, Saturation, Mix               bool
		Distinct, Shared, FetchTimes           bool
		WarmUpLimit, Window                    time.Duration
		ClusterQPS                             float64
		ClusterBurst, ClusterSyncs             int
		RecordErrors                           bool
	}
	size := func(hpas int, warmUp time.Duration) summary {
		return summary{HPAs: hpas, PodsPerHPA: 5, LatencyHPAs: 50, Workers: 5, QPS: 2000, Latency: true, WarmUpLimit: warmUp, Window: 30 * time.Second,
			ClusterQPS: 1000, ClusterBurst: 2000, ClusterSyncs: 20, RecordErrors: true}
	}
	tests := []struct {
		name   string
		change func(*Options)
		want   []summary
	}{
		{
			name:   "the default sizes: the default workload of five pods per HPA, steady window and latency, warm-up bounded by the size",
			change: func(*Options) {},
			want:   []summary{size(1000, 150*time.Second), size(5000, 270*time.Second), size(10000, 420*time.Second)},
		},
		{
			name:   "the pods per HPA and the controllers' flags carry over",
			change: func(o *Options) { o.ScalingPodsPerHPA, o.Workers, o.QPS = 2, 10, 500 },
			want: []summary{
				{HPAs: 1000, PodsPerHPA: 2, LatencyHPAs: 50, Workers: 10, QPS: 500, Latency: true, WarmUpLimit: 150 * time.Second, Window: 30 * time.Second,
					ClusterQPS: 1000, ClusterBurst: 2000, ClusterSyncs: 20, RecordErrors: true},
				{HPAs: 5000, PodsPerHPA: 2, LatencyHPAs: 50, Workers: 10, QPS: 500, Latency: true, WarmUpLimit: 270 * time.Second, Window: 30 * time.Second,
					ClusterQPS: 1000, ClusterBurst: 2000, ClusterSyncs: 20, RecordErrors: true},
				{HPAs: 10000, PodsPerHPA: 2, LatencyHPAs: 50, Workers: 10, QPS: 500, Latency: true, WarmUpLimit: 420 * time.Second, Window: 30 * time.Second,
					ClusterQPS: 1000, ClusterBurst: 2000, ClusterSyncs: 20, RecordErrors: true},
			},
		},
		{
			name: "-skip-latency leaves the latency phase out of every size too",
			change: func(o *Options) {
				o.ScalingSizes, o.SkipLatency = []int{100}, true
			},
			want: []summary{func() summary { s := size(100, 123*time.Second); s.Latency = false; return s }()},
		},
		{
			name: "the settings of the other scenarios do not reach the sizes",
			change: func(o *Options) {
				o.ScalingSizes, o.SyncPeriodMix, o.SlowTenants, o.DistinctHPAs = []int{100}, true, true, 3000
			},
			want: []summary{size(100, 123*time.Second)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.Scaling = true
			tc.change(&o)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			var got []summary
			for _, sc := range o.scalingScenarios() {
				so := sc.opts
				if sc.name != ScenarioScaling {
					t.Errorf("a size named %q", sc.name)
				}
				if so.Scaling || so.DistinctHPAs != 0 || so.ThrottledHPAs != 0 || so.ThrottledSharedHPAs != 0 || so.SlowTenants || so.Ramp || !so.DefaultScenario {
					t.Errorf("size %d would nest scenarios", so.HPAs)
				}
				got = append(got, summary{HPAs: so.HPAs, PodsPerHPA: so.PodsPerHPA, LatencyHPAs: so.LatencyHPAs, Workers: so.Workers, QPS: so.QPS,
					Latency: !so.SkipLatency, Saturation: !so.SkipSaturation, Mix: so.SyncPeriodMix,
					Distinct: so.DistinctMetrics, Shared: so.AllShared, FetchTimes: so.FetchTimes, WarmUpLimit: so.WarmUpLimit, Window: so.Window,
					ClusterQPS: so.ClusterClientQPS, ClusterBurst: so.ClusterClientBurst, ClusterSyncs: so.ClusterWorkloadSyncs, RecordErrors: so.RecordControllerErrors})
				if err := so.Validate(); err != nil {
					t.Errorf("size %d: %v", so.HPAs, err)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("sizes (-want +got):\n%s", diff)
			}
			for _, sc := range o.scenarios() {
				if sc.opts.Scaling || sc.opts.PodsPerHPA != 0 || sc.opts.RecordControllerErrors {
					t.Errorf("scenario %s carries the scaling scenario's settings", sc.name)
				}
			}
		})
	}
}

func TestClusterOptions(t *testing.T) {
	tests := []struct {
		name                             string
		opts                             Options
		wantControllerManager, wantSched []string
	}{
		{name: "the other scenarios keep localcluster's flags", opts: NewOptions()},
		{
			name:                  "the scaling sizes raise the limits of the pods' creators and binder, and the workload workers",
			opts:                  NewOptions().scalingScenarios()[0].opts,
			wantControllerManager: []string{"--kube-api-qps=1000", "--kube-api-burst=2000", "--concurrent-deployment-syncs=20", "--concurrent-replicaset-syncs=20"},
			wantSched:             []string{"--kube-api-qps=1000", "--kube-api-burst=2000"},
		},
		{
			name:                  "a limit alone",
			opts:                  Options{ClusterClientQPS: 250.5},
			wantControllerManager: []string{"--kube-api-qps=250.5"},
			wantSched:             []string{"--kube-api-qps=250.5"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.RepoRoot, tc.opts.BinDir = "/repo", "/repo/bin"
			co := tc.opts.clusterOptions()
			if co.RepoRoot != "/repo" || co.BinDir != "/repo/bin" {
				t.Errorf("cluster at %q with %q", co.RepoRoot, co.BinDir)
			}
			if diff := cmp.Diff(tc.wantControllerManager, co.ExtraControllerManagerFlags, emptyIsNil); diff != "" {
				t.Errorf("kube-controller-manager flags (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSched, co.ExtraSchedulerFlags, emptyIsNil); diff != "" {
				t.Errorf("kube-scheduler flags (-want +got):\n%s", diff)
			}
		})
	}
}

// emptyIsNil compares an empty slice equal to a nil one.
var emptyIsNil = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestPodsPerHPAWorkload(t *testing.T) {
	tests := []struct {
		name                         string
		pods                         int
		wantShared, wantUnique       string // the steady values served
		wantRaised                   string
		wantMin, wantMax, wantLatRep int32
	}{
		{name: "zero is one pod, the default workload as it was", pods: 0, wantShared: "100", wantUnique: "100", wantRaised: "300", wantMin: 1, wantMax: 10, wantLatRep: 3},
		{name: "one pod per HPA", pods: 1, wantShared: "100", wantUnique: "100", wantRaised: "300", wantMin: 1, wantMax: 10, wantLatRep: 3},
		{name: "five pods: the per-pod targets' values five times the target, the others at it", pods: 5,
			wantShared: "500", wantUnique: "100", wantRaised: "700", wantMin: 5, wantMax: 10, wantLatRep: 7},
		{name: "eight pods: room above the latency phase's ten", pods: 8, wantShared: "800", wantUnique: "100", wantRaised: "1000", wantMin: 8, wantMax: 16, wantLatRep: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			o.HPAs, o.LatencyHPAs, o.PodsPerHPA = 60, 10, tc.pods
			data := metricsData(o, latencyMetrics(o)...)
			for i := range o.HPAs {
				m := metricFor(i, o)
				value := tc.wantUnique
				switch {
				case m.latency:
					value = tc.wantRaised
				case m.name == metricShared:
					value = tc.wantShared
				}
				series := "- {value: \"" + value + "\", labels: {" + m.labelKey + ": " + m.labelValue + "}}\n"
				if !strings.Contains(data["external."+m.name], series) {
					t.Errorf("HPA %d: no %q in %s", i, series, data["external."+m.name])
				}
				h, d := hpa(i, o), deployment(i, o)
				if *h.Spec.MinReplicas != tc.wantMin || h.Spec.MaxReplicas != tc.wantMax || *d.Spec.Replicas != tc.wantMin {
					t.Errorf("HPA %d: min %d max %d on %d replicas, want %d, %d on %d", i, *h.Spec.MinReplicas, h.Spec.MaxReplicas, *d.Spec.Replicas, tc.wantMin, tc.wantMax, tc.wantMin)
				}
			}
			if got := o.latencyReplicas(); got != tc.wantLatRep || got > tc.wantMax {
				t.Errorf("latency replicas %d, want %d within max %d", got, tc.wantLatRep, tc.wantMax)
			}
		})
	}
}

func TestSettleTimeout(t *testing.T) {
	tests := []struct {
		name       string
		hpas, pods int
		want       time.Duration
	}{
		{name: "the default workload keeps its ten minutes", hpas: 1000, pods: 1, want: 10 * time.Minute},
		{name: "the smallest scaling size still has ten", hpas: 1000, pods: 5, want: 10 * time.Minute},
		{name: "the largest scaling size has 80 ms per pod", hpas: 10000, pods: 5, want: 4000 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{HPAs: tc.hpas, PodsPerHPA: tc.pods}
			if got := o.settleTimeout(); got != tc.want {
				t.Errorf("settle timeout %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseOOMKills(t *testing.T) {
	tests := []struct {
		name    string
		vmstat  string
		want    int64
		wantErr bool
	}{
		{name: "the counter among the others", vmstat: "nr_free_pages 123\noom_kill 4\npgfault 9\n", want: 4},
		{name: "no kill yet", vmstat: "oom_kill 0\n", want: 0},
		{name: "a counter of a similar name is not it", vmstat: "oom_kill_other 3\n", wantErr: true},
		{name: "a kernel without the counter", vmstat: "nr_free_pages 123\n", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseOOMKills([]byte(tc.vmstat))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("parseOOMKills = %d, %v; want %d, an error: %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestDescribeLimit(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		killed int64
		want   string
	}{
		{name: "no error, no limit", want: ""},
		{name: "no error whatever the kills (another process's)", killed: 2, want: ""},
		{name: "a time-out as it is", err: errors.New("waiting for 10000 Deployments: timeout"), want: "waiting for 10000 Deployments: timeout"},
		{name: "a kill during the size says out of memory", err: errors.New("kube-apiserver exited (signal: killed)"), killed: 1,
			want: "out of memory: the kernel killed 1 processes during this size; kube-apiserver exited (signal: killed)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := describeLimit(tc.err, tc.killed); got != tc.want {
				t.Errorf("describeLimit = %q, want %q", got, tc.want)
			}
		})
	}
}
