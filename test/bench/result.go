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
	"bufio"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// Result is everything one run measured; it is written as JSON.
type Result struct {
	Started time.Time `json:"started"`
	Machine Machine   `json:"machine"`
	// ScenarioResult is the default scenario, at the top level of the
	// JSON where the results of runs before the other scenarios have it.
	ScenarioResult
	// Mix is the sync period mix, when measured.
	Mix *MixResult `json:"syncPeriodMix,omitempty"`
	// Scenarios are the scenarios after the default one, in order.
	Scenarios []ScenarioResult `json:"scenarios,omitempty"`
	// Ramp is the ramp, when measured.
	Ramp *RampResult `json:"ramp,omitempty"`
	// Scaling is the scaling scenario, when measured: one table per size.
	Scaling *ScalingResult `json:"scaling,omitempty"`
}

// Machine describes where the run happened.
type Machine struct {
	Cores     int     `json:"cores"`
	CPUModel  string  `json:"cpuModel"`
	MemoryGiB float64 `json:"memoryGiB"`
	GoVersion string  `json:"goVersion"`
}

// Setup is the workload and the flags both controllers ran with.
type Setup struct {
	HPAs                 int     `json:"hpas"`
	Namespaces           int     `json:"namespaces,omitempty"`
	PodsPerHPA           int     `json:"podsPerHPA"`
	LatencyHPAs          int     `json:"latencyHPAs"`
	SharedGroupSize      int     `json:"sharedGroupSize"`
	DistinctMetrics      int     `json:"distinctMetrics"`
	SyncPeriod           string  `json:"syncPeriod"`
	SaturationSyncPeriod string  `json:"saturationSyncPeriod"`
	Workers              int     `json:"workers"`
	QPS                  float64 `json:"kubeAPIQPS"`
	Burst                int     `json:"kubeAPIBurst"`
	// DistinctOnly says every HPA had a metric of its own.
	DistinctOnly bool   `json:"distinctMetricsOnly,omitempty"`
	Window       string `json:"window"`
	// WarmUpLimit bounds the wait for a first pass; empty when the run
	// waited for it.
	WarmUpLimit string `json:"warmUpLimit,omitempty"`
	// Latency and Saturation say which phases were measured besides the
	// steady window.
	Latency    bool `json:"latencyMeasured"`
	Saturation bool `json:"saturationMeasured"`
	// IdealFetchesPerReconcile is distinct metrics over HPAs: what a
	// controller that fetches each distinct metric once per pass makes.
	IdealFetchesPerReconcile float64 `json:"idealFetchesPerReconcile"`
	// MetricsAPI is the API the HPAs read: external.metrics.k8s.io from
	// the adapter, or metrics.k8s.io from metrics-server (the CPU
	// scenario); empty in results from before it was recorded.
	MetricsAPI string `json:"metricsAPI,omitempty"`
	// SlowHPAs had a metric the adapter answered after SlowDelay, or in
	// the other modes (SlowMode) failed from the steady window on: hung,
	// or in turn failed fast and hung, changing every FlapPeriod; their
	// fallback, where a controller has one, came after FallbackAfter.
	SlowHPAs      int    `json:"slowHPAs,omitempty"`
	SlowDelay     string `json:"slowDelay,omitempty"`
	SlowMode      string `json:"slowMode,omitempty"`
	FlapPeriod    string `json:"flapPeriod,omitempty"`
	FallbackAfter string `json:"fallbackAfter,omitempty"`
}

// ControllerResult is one controller's figures.
type ControllerResult struct {
	Name         string  `json:"name"`
	Steady       Phase   `json:"steady"`
	Saturation   Phase   `json:"saturation"`
	Latency      Latency `json:"latency"`
	PeakRSSBytes int64   `json:"peakRSSBytes"`
	// SteadyRSSBytes is the resident memory at the end of the steady
	// window. For a controller run as several replicas, both are the
	// largest replica's, and ReplicaPeakRSSBytes and
	// ReplicaSteadyRSSBytes each replica's.
	SteadyRSSBytes        int64   `json:"steadyRSSBytes"`
	Replicas              int     `json:"replicas,omitempty"`
	ReplicaPeakRSSBytes   []int64 `json:"replicaPeakRSSBytes,omitempty"`
	ReplicaSteadyRSSBytes []int64 `json:"replicaSteadyRSSBytes,omitempty"`
	WarmUp                WarmUp  `json:"warmUp"`
	// Profile is the perf report of the saturation window, if recorded.
	Profile string `json:"profile,omitempty"`
	// PassGaps is what the adapter's fetch times say of the passes in the
	// steady window, in the scenarios that read them.
	PassGaps *PassGaps `json:"passGaps,omitempty"`
	// SlowFaults is what the slow-tenants modes that fail mid-run
	// measure besides the passes; Latency is then the healthy HPAs'
	// latency after the failures began.
	SlowFaults *SlowFaults `json:"slowFaults,omitempty"`
	// Error says why the controller could not be measured, where the
	// scenario records it and goes on (Options.RecordControllerErrors);
	// its figures are then those measured before it, zero for the rest.
	Error string `json:"error,omitempty"`
}

// WarmUp is the steady phase's wait for a first pass over the HPAs.
type WarmUp struct {
	// Seconds runs from the controller's start (its /metrics answering)
	// until it had reconciled as many times as there are HPAs, or until
	// the warm-up limit ended the wait; Reconciles is the count then, and
	// Complete says whether it reached the HPAs'.
	Seconds    float64 `json:"seconds"`
	Reconciles float64 `json:"reconciles"`
	Complete   bool    `json:"complete"`
}

// Phase is one measured window.
type Phase struct {
	SyncPeriod          string  `json:"syncPeriod,omitempty"`
	WindowSeconds       float64 `json:"windowSeconds"`
	Reconciles          float64 `json:"reconciles"`
	ReconcilesPerSecond float64 `json:"reconcilesPerSecond"`
	// CPU seconds per 1,000 reconciles of the controller, of kube-apiserver
	// (less the idle baseline) and of the metrics adapter.
	CPUPer1000          float64 `json:"controllerCPUSecondsPer1000"`
	APIServerCPUPer1000 float64 `json:"apiServerCPUSecondsPer1000"`
	AdapterCPUPer1000   float64 `json:"adapterCPUSecondsPer1000"`
	// APIServerCores is kube-apiserver's CPU time over the window's
	// length: less the idle baseline for a controller's window, all of it
	// for the baseline's.
	APIServerCores float64 `json:"apiServerCores"`
	// RequestsPerReconcile is kube-apiserver's apiserver_request_total by
	// "VERB resource", less the idle baseline; for the baseline itself it
	// is requests per second. It lacks the external metric requests,
	// which the aggregator proxies without counting them there.
	RequestsPerReconcile map[string]float64 `json:"requestsPerReconcile"`
	// FetchesPerReconcile are the external metric requests, as the
	// adapter counted them.
	FetchesPerReconcile float64 `json:"externalFetchesPerReconcile"`
	// TotalRequests is both: every request the controller sent to
	// kube-apiserver, per reconcile.
	TotalRequests float64 `json:"totalRequestsPerReconcile"`
	// WatchBytesPerSecond is what kube-apiserver sent to watches
	// (apiserver_watch_events_sizes), less the idle baseline: the egress
	// that sharded list and watch divides between replicas.
	WatchBytesPerSecond float64 `json:"apiServerWatchBytesPerSecond"`
	// ReplicaCores is each replica's CPU time over the window's length,
	// for a controller run as several replicas.
	ReplicaCores []float64 `json:"replicaCores,omitempty"`
	// MachineBusyPercent is how busy all cores were during the window;
	// OtherLoadPercent is the part of it that was not the benchmark's (the
	// machine is shared): a window with much of it is suspect.
	MachineBusyPercent float64 `json:"machineBusyPercent"`
	OtherLoadPercent   float64 `json:"otherLoadPercent"`
	// QueueWaitSeconds is the mean time an HPA waited in the controller's
	// queue once due, until a worker took it (workqueue_queue_duration_seconds
	// of the "horizontalpodautoscaler" queue, over the window); QueueDepth
	// is that queue's workqueue_depth at the window's end. Both stay small
	// while the controller keeps up with its HPAs; the depth is one
	// moment's, and a window that ends in a burst of due HPAs catches part
	// of it.
	QueueWaitSeconds float64 `json:"meanQueueWaitSeconds"`
	QueueDepth       float64 `json:"queueDepthAtEnd"`
	// Saturated says the controller reconciled at least 10% fewer HPAs
	// than the sync period made due, so its queue never emptied.
	Saturated bool `json:"saturated,omitempty"`
}

// phaseOf turns a window's delta into per-reconcile figures.
func phaseOf(d delta, sync time.Duration) Phase {
	p := Phase{
		WindowSeconds:        d.elapsed.Seconds(),
		Reconciles:           d.reconciles,
		RequestsPerReconcile: map[string]float64{},
		MachineBusyPercent:   d.machineBusy * 100,
		OtherLoadPercent:     d.otherBusy * 100,
		QueueDepth:           d.queueDepth,
	}
	if d.queueWaits > 0 {
		p.QueueWaitSeconds = d.queueWait / d.queueWaits
	}
	if sync > 0 {
		p.SyncPeriod = sync.String()
	}
	if d.elapsed > 0 {
		p.ReconcilesPerSecond = d.reconciles / d.elapsed.Seconds()
		p.APIServerCores = d.apiServerCPU.Seconds() / d.elapsed.Seconds()
		p.WatchBytesPerSecond = d.watchBytes / d.elapsed.Seconds()
		if len(d.replicaCPU) > 1 {
			for _, cpu := range d.replicaCPU {
				p.ReplicaCores = append(p.ReplicaCores, cpu.Seconds()/d.elapsed.Seconds())
			}
		}
	}
	per := d.reconciles
	if per == 0 {
		return p
	}
	p.CPUPer1000 = d.controllerCPU.Seconds() / per * 1000
	p.APIServerCPUPer1000 = d.apiServerCPU.Seconds() / per * 1000
	p.AdapterCPUPer1000 = d.adapterCPU.Seconds() / per * 1000
	p.FetchesPerReconcile = d.fetches / per
	p.TotalRequests = p.FetchesPerReconcile
	for k, v := range d.requests {
		p.RequestsPerReconcile[k] = v / per
		p.TotalRequests += v / per
	}
	return p
}

// baselinePhase reports the idle cluster's requests per second and
// kube-apiserver's CPU.
func baselinePhase(d delta) Phase {
	p := Phase{WindowSeconds: d.elapsed.Seconds(), RequestsPerReconcile: map[string]float64{},
		MachineBusyPercent: d.machineBusy * 100, OtherLoadPercent: d.otherBusy * 100}
	if d.elapsed > 0 {
		p.APIServerCores = d.apiServerCPU.Seconds() / d.elapsed.Seconds()
	}
	for k, v := range d.requests {
		p.RequestsPerReconcile[k] = v / d.elapsed.Seconds()
		p.TotalRequests += v / d.elapsed.Seconds()
	}
	return p
}

func describeMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		scanner := bufio.NewScanner(f)
		for scanner.Scan() {
			if k, v, ok := strings.Cut(scanner.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		_ = f.Close()
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if bytes, err := parseStatusKB(data, "MemTotal"); err == nil {
			m.MemoryGiB = math.Round(float64(bytes)/(1<<30)*10) / 10
		}
	}
	return m
}
