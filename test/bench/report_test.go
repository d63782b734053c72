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
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var samples []time.Duration
	for i := 100; i >= 1; i-- {
		samples = append(samples, time.Duration(i)*time.Second)
	}
	got := summarize(samples, 104)
	want := Latency{Measured: 100, Missed: 4, P50: 50, P99: 99, Max: 100}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := summarize(nil, 3); got != (Latency{Missed: 3}) {
		t.Errorf("no samples: got %+v", got)
	}
	if got := summarize([]time.Duration{2 * time.Second}, 1); got.P50 != 2 || got.P99 != 2 {
		t.Errorf("one sample: got %+v", got)
	}
}

func TestLessBaseline(t *testing.T) {
	base := delta{elapsed: 10 * time.Second, apiServerCPU: time.Second, requests: map[string]float64{"PUT leases": 10, "GET (non-resource)": 4}}
	d := delta{elapsed: 20 * time.Second, apiServerCPU: 5 * time.Second, reconciles: 100,
		requests: map[string]float64{"PUT leases": 21, "GET apps/deployments/scale": 100, "GET (non-resource)": 8}, fetches: 50}
	p := phaseOf(d.lessBaseline(base), 15*time.Second)
	if got := p.RequestsPerReconcile["PUT leases"]; got < 0.0099 || got > 0.0101 {
		t.Errorf("leases per reconcile %v, want 0.01", got)
	}
	if p.RequestsPerReconcile["GET (non-resource)"] != 0 || p.RequestsPerReconcile["GET apps/deployments/scale"] != 1 {
		t.Errorf("requests %v", p.RequestsPerReconcile)
	}
	if p.TotalRequests < 1.509 || p.TotalRequests > 1.511 {
		t.Errorf("total %v, want 1.51 (1 scale, 0.5 fetches, 0.01 leases)", p.TotalRequests)
	}
	if p.APIServerCPUPer1000 != 30 || p.FetchesPerReconcile != 0.5 || p.ReconcilesPerSecond != 5 {
		t.Errorf("phase %+v", p)
	}
}

func TestQueueFigures(t *testing.T) {
	tests := []struct {
		name           string
		start, end     controllerMetrics
		wantWait       float64
		wantDepthAtEnd float64
	}{
		{
			name:     "the mean wait is the window's added waiting time over its added waits, the depth the end's",
			start:    controllerMetrics{reconciles: 1000, queueWait: 4, queueWaits: 1000, queueDepth: 7},
			end:      controllerMetrics{reconciles: 1400, queueWait: 6, queueWaits: 1400, queueDepth: 3},
			wantWait: 0.005, wantDepthAtEnd: 3,
		},
		{
			name:           "no HPA taken from the queue in the window means no mean wait",
			start:          controllerMetrics{queueWait: 4, queueWaits: 1000, queueDepth: 50},
			end:            controllerMetrics{queueWait: 4, queueWaits: 1000, queueDepth: 90},
			wantDepthAtEnd: 90,
		},
		{
			name:  "a controller without the queue's metrics has zero figures",
			start: controllerMetrics{reconciles: 10},
			end:   controllerMetrics{reconciles: 20},
		},
	}
	base := delta{elapsed: time.Second, requests: map[string]float64{}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at := time.Now()
			s0 := snapshot{at: at, controllerMetrics: tc.start}
			s1 := snapshot{at: at.Add(10 * time.Second), controllerMetrics: tc.end}
			p := phaseOf(s0.until(s1).lessBaseline(base), 15*time.Second)
			if math.Abs(p.QueueWaitSeconds-tc.wantWait) > 1e-12 || p.QueueDepth != tc.wantDepthAtEnd {
				t.Errorf("mean wait %v s, depth %v; want %v s, %v", p.QueueWaitSeconds, p.QueueDepth, tc.wantWait, tc.wantDepthAtEnd)
			}
		})
	}
}

func TestWriteTable(t *testing.T) {
	scaleGet := "GET apps/deployments/scale"
	tests := []struct {
		name             string
		scenario         ScenarioResult
		wanted, unwanted []string // regular expressions
	}{
		{
			name: "the default scenario has every phase",
			scenario: ScenarioResult{
				Name:  ScenarioDefault,
				Setup: Setup{HPAs: 200, SyncPeriod: "15s", SaturationSyncPeriod: "100ms", Window: "30s", Saturation: true, Latency: true, LatencyHPAs: 50},
				Controllers: []ControllerResult{
					{Name: Upstream, WarmUp: WarmUp{Seconds: 16, Complete: true}, Steady: Phase{CPUPer1000: 0.4, QueueWaitSeconds: 0.0125, QueueDepth: 40, RequestsPerReconcile: map[string]float64{scaleGet: 1, "LIST pods": 0.001, "PATCH nodes/status": -0.0001}}, Saturation: Phase{Saturated: true}},
					{Name: KubeHPA, WarmUp: WarmUp{Seconds: 14, Complete: true}, Steady: Phase{CPUPer1000: 0.2, QueueWaitSeconds: 0.0025, RequestsPerReconcile: map[string]float64{"PUT apps/deployments/scale": 0.02, "PATCH nodes/status": -0.02}}},
				},
			},
			wanted: []string{
				`^Default workload: .* \(default\)\n200 HPAs .*kube-api-qps 0, burst 0;`,
				`kube-hpa/upstream\n`,
				`\ncontroller CPU s per 1,000 reconciles, steady +0\.400 +0\.200 +0\.50\n`,
				`\ncontroller CPU s per 1,000 reconciles, saturated `,
				`\n  GET apps/deployments/scale +1\.000 +0\.000 +0\.00\n`,
				// A request kind only kube-hpa makes gets its row, with no
				// ratio to upstream's zero.
				`\n  PUT apps/deployments/scale +0\.000 +0\.020 +-\n`,
				// Nor against baseline noise on upstream's side.
				`\n  PATCH nodes/status +0\.000 +-0\.020 +-\n`,
				`\nmean wait in the HPA queue once due, ms, steady +12\.5 +2\.5 +0\.20\n`,
				`\nHPA queue depth at the end of the steady window +40 +0 +0\.00\n`,
				`\nfirst pass over every HPA after start, s \(- = not in the warm-up\) +16 +14 +0\.88\n`,
				`\nmetric change to scale, p99 s `,
				`note: kube-hpa kept up`,
				`LISTs and WATCHes at start .* are one-off`,
			},
			unwanted: []string{`LIST pods`, `note: upstream`, `warm-up limit`},
		},
		{
			name: "a steady-only scenario whose warm-up ended before a full pass",
			scenario: ScenarioResult{
				Name:  ScenarioThrottled,
				Setup: Setup{HPAs: 2000, SyncPeriod: "15s", Window: "1m0s", WarmUpLimit: "2m30s", QPS: 20, Burst: 30},
				Controllers: []ControllerResult{
					{Name: Upstream, WarmUp: WarmUp{Seconds: 150, Reconciles: 1830}, Steady: Phase{SyncPeriod: "15s", ReconcilesPerSecond: 20, QueueDepth: 1700}},
					{Name: KubeHPA, WarmUp: WarmUp{Seconds: 101, Reconciles: 2000, Complete: true}, Steady: Phase{SyncPeriod: "15s", ReconcilesPerSecond: 2000.0 / 15}},
				},
			},
			wanted: []string{
				`^Default client limits .* \(default-client-limits\)\n2000 HPAs .*kube-api-qps 20, burst 30;`,
				`\nreconciles per HPA and sync period, steady \(1 = keeps up\) +0\.15 +1\.00 +6\.67\n`,
				`\nfirst pass over every HPA after start, s \(- = not in the warm-up\) +- +101 +-\n`,
				`note: upstream had reconciled 1830 times for 2000 HPAs when the warm-up limit of 2m30s ended`,
			},
			unwanted: []string{`saturat`, `metric change to scale`, `note: kube-hpa`},
		},
		{
			name: "the CPU scenario names metrics-server and its PodMetrics lists, not the adapter",
			scenario: ScenarioResult{
				Name:  ScenarioCPU,
				Setup: Setup{HPAs: 500, SyncPeriod: "15s", Window: "30s", MetricsAPI: "metrics.k8s.io", IdealFetchesPerReconcile: 1},
				Controllers: []ControllerResult{
					{Name: Upstream, WarmUp: WarmUp{Complete: true}, Steady: Phase{FetchesPerReconcile: 1, AdapterCPUPer1000: 2}},
					{Name: KubeHPA, WarmUp: WarmUp{Complete: true}, Steady: Phase{FetchesPerReconcile: 1, AdapterCPUPer1000: 1}},
				},
			},
			wanted: []string{
				`^CPU utilization: .* \(cpu-utilization\)\n500 HPAs \(CPU utilization through metrics-server\),`,
				`\n  LIST metrics.k8s.io pods \(proxied; metrics-server's count\) +1\.000 +1\.000 +1\.00\n`,
				`\nresource metric fetches \(PodMetrics lists\) per reconcile, steady +1\.000 +1\.000 +1\.00\n`,
				`\nmetrics-server CPU s per 1,000 reconciles, steady +2\.000 +1\.000 +0\.50\n`,
				`One PodMetrics list per HPA and sync period would be 1\.000 fetches per reconcile`,
				`PodMetrics lists it proxies to metrics-server`,
				`CPU readings move by a hair`,
			},
			unwanted: []string{`external`, `adapter`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteTable(&b, Machine{Cores: 2}, tc.scenario); err != nil {
				t.Fatal(err)
			}
			checkTable(t, b.String(), tc.wanted, tc.unwanted)
		})
	}
}

func TestWriteReportOrder(t *testing.T) {
	one := func(name string) ScenarioResult {
		return ScenarioResult{Name: name, Setup: Setup{HPAs: 10, SyncPeriod: "15s"}, Controllers: []ControllerResult{{Name: Upstream}, {Name: KubeHPA}}}
	}
	res := &Result{
		ScenarioResult: one(ScenarioDefault),
		Scenarios:      []ScenarioResult{one(ScenarioDistinct), one(ScenarioThrottled)},
		Mix:            &MixResult{FastPeriod: "2s"},
	}
	var b strings.Builder
	if err := WriteReport(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	last := -1
	for _, heading := range []string{"(default)", "(distinct-metrics)", "(default-client-limits)", "Sync period mix"} {
		at := strings.Index(out, heading)
		if at <= last {
			t.Fatalf("%q at %d, after %d: want the default, distinct, throttled tables, then the mix:\n%s", heading, at, last, out)
		}
		last = at
	}
}

// checkTable fails t unless out matches every pattern of wanted and none
// of unwanted.
func checkTable(t *testing.T, out string, wanted, unwanted []string) {
	t.Helper()
	for _, want := range wanted {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, u := range unwanted {
		if regexp.MustCompile(u).MatchString(out) {
			t.Errorf("table has %q:\n%s", u, out)
		}
	}
}
