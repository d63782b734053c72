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
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestGrowthPer1000(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		hpas   []int
		values []float64
		want   []float64
	}{
		{name: "between each two consecutive sizes, per 1,000 HPAs", hpas: []int{1000, 5000, 10000}, values: []float64{100, 300, 550}, want: []float64{50, 50}},
		{name: "a shrink is a negative growth", hpas: []int{1000, 3000}, values: []float64{100, 90}, want: []float64{-5}},
		{name: "sizes below 1,000 HPAs scale up", hpas: []int{100, 200}, values: []float64{40, 42}, want: []float64{20}},
		{name: "a size not measured leaves both its intervals unmeasured", hpas: []int{1000, 5000, 10000}, values: []float64{100, nan, 550}, want: []float64{nan, nan}},
		{name: "one size has no interval", hpas: []int{1000}, values: []float64{100}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := growthPer1000(tc.hpas, tc.values)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("growth (-want +got):\n%s", diff)
			}
		})
	}
}

// scalingController is a controller's figures at one size of the sample.
func scalingController(name string, rssMiB, steadyMiB, cpu float64, hpas int, perPeriod float64) ControllerResult {
	return ControllerResult{
		Name:           name,
		PeakRSSBytes:   int64(rssMiB * (1 << 20)),
		SteadyRSSBytes: int64(steadyMiB * (1 << 20)),
		WarmUp:         WarmUp{Complete: true},
		Steady: Phase{SyncPeriod: "15s", ReconcilesPerSecond: float64(hpas) / 15 * perPeriod, CPUPer1000: cpu, TotalRequests: 2,
			APIServerCores: 0.5, RequestsPerReconcile: map[string]float64{}},
		Latency: Latency{Measured: 50, P50: 8, P99: 14.5},
	}
}

// scalingSize is one size of the sample, its controllers measured.
func scalingSize(hpas int, controllers ...ControllerResult) ScalingSize {
	return ScalingSize{
		ScenarioResult: ScenarioResult{
			Name:                 ScenarioScaling,
			Setup:                Setup{HPAs: hpas, PodsPerHPA: 5, LatencyHPAs: 50, SyncPeriod: "15s", Workers: 5, QPS: 2000, Burst: 4000, Window: "30s", Latency: true},
			Baseline:             Phase{WindowSeconds: 30, APIServerCores: 0.12, RequestsPerReconcile: map[string]float64{}},
			Controllers:          controllers,
			WorkloadReadySeconds: float64(hpas) / 20,
		},
		Pods: 5 * hpas,
	}
}

// sampleScaling is a run of three sizes: both controllers at the first
// two, upstream out of memory at the third.
func sampleScaling() *ScalingResult {
	large := scalingSize(10000,
		ControllerResult{Name: Upstream, Error: "out of memory: the kernel killed 1 processes during this size; upstream exited (signal: killed)"},
		scalingController(KubeHPA, 400, 380, 0.7, 10000, 1))
	return &ScalingResult{PodsPerHPA: 5, Sizes: []ScalingSize{
		scalingSize(1000, scalingController(Upstream, 150, 140, 1.5, 1000, 1), scalingController(KubeHPA, 120, 110, 0.6, 1000, 1)),
		scalingSize(5000, scalingController(Upstream, 550, 500, 2.5, 5000, 0.5), scalingController(KubeHPA, 280, 250, 0.65, 5000, 1)),
		large,
	}}
}

func TestWriteScalingTable(t *testing.T) {
	tests := []struct {
		name             string
		res              *ScalingResult
		wanted, unwanted []string // regular expressions
	}{
		{
			name: "every figure by size, the ratios of peak RSS and CPU, the growth, and the controller that did not fit",
			res:  sampleScaling(),
			wanted: []string{
				`^Scaling: the default workload at growing sizes, 5 pods per Deployment, each size on a cluster of its own \(scaling\)\n` +
					`5 workers, kube-api-qps 2000, burst 4000, sync 15s, steady window 30s; 2 cores \(EPYC\), 23\.5 GiB, go1\.26\n\n`,
				`\nfigure +1000 HPAs +5000 HPAs +10000 HPAs\npods +5000 +25000 +50000\nworkload ready after, s +50 +250 +500\n`,
				`\nkube-apiserver CPU, idle, cores +0\.12 +0\.12 +0\.12\n`,
				`\npeak RSS, MiB\n  upstream +150\.0 +550\.0 +-\n  kube-hpa +120\.0 +280\.0 +400\.0\n  kube-hpa/upstream +0\.80 +0\.51 +-\n`,
				`\nRSS at the end of the steady window, MiB\n  upstream +140\.0 +500\.0 +-\n  kube-hpa +110\.0 +250\.0 +380\.0\n[a-z]`,
				`\ncontroller CPU s per 1,000 reconciles, steady\n  upstream +1\.500 +2\.500 +-\n  kube-hpa +0\.600 +0\.650 +0\.700\n  kube-hpa/upstream +0\.40 +0\.26 +-\n`,
				`\nreconciles per HPA and sync period, steady \(1 = keeps up\)\n  upstream +1\.00 +0\.50 +-\n  kube-hpa +1\.00 +1\.00 +1\.00\n`,
				`\nmetric change to scale, p99 s\n  upstream +14\.50 +14\.50 +-\n`,
				`\nkube-apiserver CPU in the steady window, cores above idle\n  upstream +0\.50 +0\.50 +-\n`,
				// Peak RSS grew 100 MiB per 1,000 HPAs for upstream, 40 then 24 for kube-hpa.
				`\n\nMemory growth between consecutive sizes, per 1,000 more HPAs \(5000 more pods\)\nMiB per 1,000 more HPAs +1000 to 5000 HPAs +5000 to 10000 HPAs\n` +
					`peak RSS, MiB\n  upstream +100\.0 +-\n  kube-hpa +40\.0 +24\.0\n  kube-hpa/upstream +0\.40 +-\n`,
				`\n  kube-hpa +35\.0 +26\.0\n`,
				`\nnote: 10000 HPAs, upstream: out of memory: the kernel killed 1 processes`,
			},
			// Only peak RSS and CPU have ratio rows.
			unwanted: []string{`RSS at the end of the steady window, MiB\n(  [a-z-]+ .*\n){2}  kube-hpa/upstream`, `note: 1000 HPAs`, `note: 5000 HPAs`},
		},
		{
			name: "a size that did not fit, a larger one not tried, a warm-up cut short",
			res: func() *ScalingResult {
				r := sampleScaling()
				r.Sizes[0].Controllers[0].WarmUp = WarmUp{Reconciles: 700}
				r.Sizes[0].Setup.WarmUpLimit = "2m10s"
				r.Sizes[1] = ScalingSize{ScenarioResult: ScenarioResult{Name: ScenarioScaling, Setup: Setup{HPAs: 5000}}, Pods: 25000,
					Error: "waiting for 5000 Deployments to have 5 ready replicas (4000 do): context deadline exceeded"}
				r.Sizes[2] = ScalingSize{ScenarioResult: ScenarioResult{Name: ScenarioScaling, Setup: Setup{HPAs: 10000}}, Pods: 50000,
					Error: "not tried: 5000 HPAs did not fit"}
				return r
			}(),
			wanted: []string{
				`\nworkload ready after, s +50 +- +-\n`,
				`\nkube-apiserver CPU, idle, cores +0\.12 +- +-\n`,
				`\n  kube-hpa +120\.0 +- +-\n`,
				`\nnote: 1000 HPAs, upstream had reconciled 700 times when the warm-up limit of 2m10s ended`,
				`\nnote: 5000 HPAs: waiting for 5000 Deployments to have 5 ready replicas \(4000 do\): context deadline exceeded\n` +
					`note: 10000 HPAs: not tried: 5000 HPAs did not fit\n`,
			},
		},
		{
			name: "one size has no growth table",
			res:  &ScalingResult{PodsPerHPA: 5, Sizes: sampleScaling().Sizes[:1]},
			wanted: []string{
				`\nfigure +1000 HPAs\n`,
				`\nMetric change to scale: 50 HPAs' metrics raised`,
			},
			unwanted: []string{`Memory growth`, `note: `},
		},
		{
			name: "without the latency phase its rows are no figures",
			res: func() *ScalingResult {
				r := &ScalingResult{PodsPerHPA: 5, Sizes: sampleScaling().Sizes[:1]}
				r.Sizes[0].Setup.Latency = false
				return r
			}(),
			wanted:   []string{`\nmetric change to scale, p50 s\n  upstream +-\n  kube-hpa +-\n`},
			unwanted: []string{`Metric change to scale: `},
		},
		{
			name:     "no size",
			res:      &ScalingResult{PodsPerHPA: 5},
			wanted:   []string{`\(no size measured\)\n$`},
			unwanted: []string{`figure`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteScalingTable(&b, Machine{Cores: 2, CPUModel: "EPYC", MemoryGiB: 23.5, GoVersion: "go1.26"}, tc.res); err != nil {
				t.Fatal(err)
			}
			checkTable(t, b.String(), tc.wanted, tc.unwanted)
		})
	}
}

func TestWriteReportEndsWithTheScalingTable(t *testing.T) {
	res := &Result{
		ScenarioResult: ScenarioResult{Name: ScenarioDefault, Setup: Setup{HPAs: 10, SyncPeriod: "15s"}, Controllers: []ControllerResult{{Name: Upstream}}},
		Mix:            &MixResult{FastPeriod: "2s"},
		Scaling:        sampleScaling(),
	}
	var b strings.Builder
	if err := WriteReport(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	mix, scaling := strings.Index(out, "Sync period mix"), strings.Index(out, "\n\nScaling: ")
	if mix < 0 || scaling < mix {
		t.Errorf("the scaling table at %d, the mix at %d: want the scaling table last:\n%s", scaling, mix, out)
	}
}

var updatePlotSample = flag.Bool("update-plot-sample", false, "rewrite the plot module's sample result, "+plotSample)

// plotSample is the result the plot module's tests read: this test keeps
// it what WriteJSON writes, so that a change of the JSON shows there.
const plotSample = "plot/testdata/latest.json"

func TestThePlotModuleSampleIsWhatWriteJSONWrites(t *testing.T) {
	res := &Result{
		Started: time.Date(2026, 11, 26, 6, 1, 11, 0, time.UTC),
		Machine: Machine{Cores: 2, CPUModel: "AMD EPYC", MemoryGiB: 23.5, GoVersion: "go1.26.8"},
		Scaling: sampleScaling(),
	}
	dir := t.TempDir()
	if _, err := WriteJSON(res, dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "latest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if *updatePlotSample {
		if err := os.WriteFile(plotSample, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(plotSample)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		var g, w any
		_ = json.Unmarshal(got, &g)
		_ = json.Unmarshal(want, &w)
		t.Errorf("%s is not what WriteJSON writes (go test ./test/bench -run %s -update-plot-sample rewrites it; then run the plot module's tests) (-sample +now):\n%s",
			plotSample, t.Name(), cmp.Diff(w, g))
	}
}
