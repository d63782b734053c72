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
	"fmt"
	"slices"
	"time"
)

// Options shape one benchmark run. NewOptions returns the defaults that
// `make bench` uses.
type Options struct {
	// RepoRoot is the kube-hpa checkout; BinDir holds the upstream binaries
	// and the metrics adapter; ControllerBinary is hpa-controller-manager;
	// UpstreamBinary is kube-controller-manager, by default BinDir's.
	RepoRoot         string
	BinDir           string
	ControllerBinary string
	UpstreamBinary   string
	// OutputDir receives the JSON results and perf profiles.
	OutputDir string

	// HPAs is how many Deployments and HPAs to create.
	HPAs int
	// LatencyHPAs of them have their metric changed at a known time to
	// measure the delay until their Deployment is scaled.
	LatencyHPAs int
	// SharedGroupSize is how many HPAs query one shared external metric
	// (same name, selector and namespace). Half of the HPAs that are not
	// latency HPAs share, the other half have a metric of their own.
	SharedGroupSize int

	// SyncPeriod is --horizontal-pod-autoscaler-sync-period for the steady
	// phase; Window is how long that phase is measured, after a warm-up
	// of one full pass over the HPAs plus one sync period.
	SyncPeriod time.Duration
	Window     time.Duration
	// SaturationSyncPeriod is the sync period of the saturation phase: so
	// short that the queue never empties. Zero picks HPAs/4000 seconds,
	// clamped to [20ms, 1s].
	SaturationSyncPeriod time.Duration
	SaturationWarmUp     time.Duration
	SaturationWindow     time.Duration

	// Workers is --concurrent-horizontal-pod-autoscaler-syncs; QPS and
	// Burst are --kube-api-qps/--kube-api-burst of both controllers, high
	// enough that client-side throttling does not hide the controllers'
	// own costs.
	Workers int
	QPS     float64
	Burst   int

	// Controllers lists which controllers to run, in order, among
	// knownControllers. Ratios in the table are to the first.
	Controllers []string
	// Perf records a perf profile of each controller during its
	// saturation window, when perf is installed.
	Perf bool
	// SyncPeriodMix measures kube-hpa on extended HPAs after the
	// side-by-side run: the proposals' gates off, on, and on with a tenth
	// of the HPAs at a 2 s sync period (mix.go).
	SyncPeriodMix bool
	// KubeHPAFlags are added to every run of hpa-controller-manager: to
	// measure a flag that is not yet its default.
	KubeHPAFlags []string

	// DistinctMetrics gives every HPA an external metric of its own, so
	// that no fetch can be shared: what a controller costs without its
	// sharing advantage.
	DistinctMetrics bool
	// AllShared has every HPA but the latency ones share an external
	// metric in groups of SharedGroupSize: a workload whose fetches fit
	// a client limit that one fetch per HPA would not.
	AllShared bool
	// WarmUpLimit bounds the steady phase's wait for one full pass over
	// the HPAs: a controller that cannot make one within it is measured
	// anyway, and the table says how far it got. Zero waits for the pass.
	WarmUpLimit time.Duration
	// SkipLatency and SkipSaturation leave those phases out: the steady
	// window alone answers what a scenario asks.
	SkipLatency    bool
	SkipSaturation bool

	// The scenarios after the default one (scenario.go), each on a
	// cluster of its own; zero HPAs skips one. DistinctHPAs is the
	// distinct-metrics table, ThrottledHPAs the table at the default
	// client limits of kube-controller-manager (ThrottledQPS and
	// ThrottledBurst), whose steady window is ThrottledWindow after a
	// warm-up of at most ThrottledWarmUpLimit. ThrottledSharedHPAs is the
	// same table on a workload of shared metrics only (AllShared).
	DistinctHPAs         int
	ThrottledHPAs        int
	ThrottledSharedHPAs  int
	ThrottledQPS         float64
	ThrottledBurst       int
	ThrottledWarmUpLimit time.Duration
	ThrottledWindow      time.Duration

	// CPUHPAs, when positive, adds the CPU utilization scenario
	// (cpu.go): that many Deployments and HPAs on their pods' CPU, read
	// through metrics-server from kwok's emulated kubelets.
	CPUHPAs int
	// CPUUtilization has every HPA scale on its pods' CPU utilization
	// instead of an External metric; the CPU scenario sets it.
	CPUUtilization bool

	// DefaultScenario measures the default workload, and the sync period
	// mix after it; false leaves both out, for a run of the other
	// scenarios alone.
	DefaultScenario bool
	// FetchTimes reads the adapter's record of when it was asked for each
	// metric after each steady window, for the gaps between passes
	// (passgap.go). The scenarios whose HPAs all have a metric of their
	// own set it: there a fetch is a pass.
	FetchTimes bool
	// SlowHPAs of the HPAs, spread evenly, have an external metric that
	// the adapter answers only after SlowDelay (slowtenants.go); the
	// slow-tenants scenario sets them.
	SlowHPAs  int
	SlowDelay time.Duration
	// SlowMode is how the slow HPAs' metric misbehaves (slowmode.go);
	// empty is SlowModeDelay, where SlowDelay applies. FlapPeriod is the
	// flap mode's, zero for one sync period. In the modes that fail
	// mid-run the slow HPAs of a controller that has the fallback
	// (kube-hpa's extended kind) get one, after FallbackAfter
	// (slowfallback.go).
	SlowMode      SlowTenantsMode
	FlapPeriod    time.Duration
	FallbackAfter time.Duration

	// SlowTenants adds the slow-tenants scenario: SlowTenantHPAs HPAs of
	// distinct metrics, SlowTenantShare of them answered after
	// SlowTenantDelay, measured over SlowTenantWindow after a warm-up of
	// at most slowTenantWarmUpLimit. SlowTenantModes are the providers
	// to measure, a scenario each; SlowTenantFlapPeriod and
	// SlowTenantFallbackAfter are its FlapPeriod and FallbackAfter.
	SlowTenants             bool
	SlowTenantHPAs          int
	SlowTenantShare         float64
	SlowTenantDelay         time.Duration
	SlowTenantWindow        time.Duration
	SlowTenantModes         []SlowTenantsMode
	SlowTenantFlapPeriod    time.Duration
	SlowTenantFallbackAfter time.Duration

	// Ramp adds the ramp (ramp.go): a few Deployments whose metric jumps
	// at a known time, scaled up under different behaviors; RampHold is
	// the longest the metric stays raised.
	Ramp     bool
	RampHold time.Duration

	// Namespaces spreads the workload over that many namespaces, in
	// blocks of consecutive HPAs (workload.go); zero or one keeps it all in
	// Namespace. The scaling scenario sets it for sharded replicas, which
	// divide HPAs by namespace.
	Namespaces int
	// PodsPerHPA is how many ready pods each Deployment has once settled,
	// the replicas its HPA holds steady (workload.go); zero means one.
	// The scaling scenario sets it.
	PodsPerHPA int
	// ClusterClientQPS and ClusterClientBurst, when positive, are
	// --kube-api-qps and --kube-api-burst of the cluster's own
	// kube-controller-manager, whose Deployment and ReplicaSet controllers
	// create the workload's pods, and of kube-scheduler, which binds them;
	// ClusterWorkloadSyncs, when positive, is that manager's
	// --concurrent-deployment-syncs and --concurrent-replicaset-syncs.
	// Zero keeps test/localcluster's. The scaling scenario sets them: tens
	// of thousands of pods at localcluster's 100 QPS take many minutes.
	ClusterClientQPS     float64
	ClusterClientBurst   int
	ClusterWorkloadSyncs int
	// RecordControllerErrors records a controller that fails in its
	// result (ControllerResult.Error) and measures the next one, instead
	// of ending the scenario: at a large size one controller may run out
	// of memory or time where the other does not.
	RecordControllerErrors bool

	// Scaling adds the scaling scenario (scaling.go): for each of
	// ScalingSizes, ascending, on a cluster of its own, that many
	// Deployments of ScalingPodsPerHPA pods and as many HPAs, the default
	// workload's mix of metrics, measured in the steady window and the
	// latency phase.
	Scaling           bool
	ScalingSizes      []int
	ScalingPodsPerHPA int
	// ScalingReplicas are replica counts of kube-hpa with --sharded that
	// the scaling scenario measures besides the single kube-hpa, each as
	// the controller ShardedKubeHPA(n).
	ScalingReplicas []int
	// ScalingNamespaces is Namespaces for the scaling sizes.
	ScalingNamespaces int
}

// The names of the controllers a run can measure.
const (
	Upstream = "upstream"
	KubeHPA  = "kube-hpa"
	// KubeHPANoSharing is kube-hpa with external metric sharing off: the
	// cost of its reconcile path alone, for whoever works on it.
	KubeHPANoSharing = "kube-hpa-no-sharing"
	// UpstreamJSON is kube-controller-manager talking JSON, as kube-hpa
	// does, instead of its default protobuf: what the encoding costs.
	UpstreamJSON = "upstream-json"
)

// ShardedKubeHPA names kube-hpa run as n replicas with --sharded.
func ShardedKubeHPA(n int) string { return fmt.Sprintf("%s-x%d", KubeHPA, n) }

// shardedController says whether name is one of ScalingReplicas'
// controllers, which the scaling scenario adds to its sizes.
func (o Options) shardedController(name string) bool {
	return slices.ContainsFunc(o.ScalingReplicas, func(n int) bool { return ShardedKubeHPA(n) == name })
}

// knownControllers are the names Options.Controllers accepts.
var knownControllers = []string{Upstream, KubeHPA, KubeHPANoSharing, UpstreamJSON}

// NewOptions returns the defaults: 1,000 HPAs at the default 15 s sync
// period, measured over two periods; then 1,000 HPAs of distinct metrics;
// then 2,000 HPAs at kube-controller-manager's default client limits
// (--kube-api-qps=20 --kube-api-burst=30), measured over four periods
// after a warm-up of at most 150 s: at 20 requests/s a controller that
// makes one request of a kind per reconcile needs 100 s for a first pass
// over 2,000 HPAs, and one that cannot finish it must still be measured;
// then the ramp. The slow-tenants scenario is off unless asked for; its
// defaults are 1,000 HPAs, 5% of them answered after 30 s, over four
// periods, the provider slow from the start (SlowModeDelay), and where
// a mode fails mid-run, a fallback after 3 minutes, the least the API
// allows. So is the scaling scenario: 1,000, 5,000 and 10,000 HPAs of
// five pods each.
func NewOptions() Options {
	return Options{
		HPAs:                 1000,
		LatencyHPAs:          50,
		SharedGroupSize:      10,
		SyncPeriod:           15 * time.Second,
		Window:               30 * time.Second,
		SaturationWarmUp:     10 * time.Second,
		SaturationWindow:     20 * time.Second,
		Workers:              5,
		QPS:                  2000,
		Burst:                4000,
		Controllers:          []string{Upstream, KubeHPA},
		SyncPeriodMix:        true,
		DistinctHPAs:         1000,
		ThrottledHPAs:        2000,
		ThrottledSharedHPAs:  2000,
		CPUHPAs:              500,
		ThrottledQPS:         20,
		ThrottledBurst:       30,
		ThrottledWarmUpLimit: 150 * time.Second,
		ThrottledWindow:      60 * time.Second,
		DefaultScenario:      true,
		SlowTenantHPAs:       1000,
		SlowTenantShare:      0.05,
		SlowTenantDelay:      30 * time.Second,
		SlowTenantWindow:     60 * time.Second,
		SlowTenantModes:      []SlowTenantsMode{SlowModeDelay},
		// failureDurationSeconds' minimum (api/autoscaling/v2).
		SlowTenantFallbackAfter: 3 * time.Minute,
		Ramp:                    true,
		RampHold:                2 * time.Minute,
		ScalingSizes:            []int{1000, 5000, 10000},
		ScalingPodsPerHPA:       5,
	}
}

// Validate reports every option that cannot work.
func (o Options) Validate() error {
	var errs []error
	if o.HPAs < 1 {
		errs = append(errs, fmt.Errorf("hpas must be at least 1, got %d", o.HPAs))
	}
	if o.LatencyHPAs < 0 || o.LatencyHPAs > o.HPAs {
		errs = append(errs, fmt.Errorf("latency-hpas must be between 0 and hpas (%d), got %d", o.HPAs, o.LatencyHPAs))
	}
	if o.SharedGroupSize < 1 {
		errs = append(errs, fmt.Errorf("shared-group-size must be at least 1, got %d", o.SharedGroupSize))
	}
	for name, d := range map[string]time.Duration{
		"sync-period": o.SyncPeriod, "window": o.Window,
		"saturation-warm-up": o.SaturationWarmUp, "saturation-window": o.SaturationWindow,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %v", name, d))
		}
	}
	if o.SaturationSyncPeriod < 0 {
		errs = append(errs, fmt.Errorf("saturation-sync-period must not be negative, got %v", o.SaturationSyncPeriod))
	}
	if o.WarmUpLimit < 0 {
		errs = append(errs, fmt.Errorf("warm-up-limit must not be negative, got %v", o.WarmUpLimit))
	}
	if o.DistinctHPAs < 0 || o.ThrottledHPAs < 0 || o.ThrottledSharedHPAs < 0 || o.CPUHPAs < 0 {
		errs = append(errs, fmt.Errorf("distinct-hpas, throttled-hpas, throttled-shared-hpas and cpu-hpas must not be negative (0 skips), got %d, %d, %d and %d",
			o.DistinctHPAs, o.ThrottledHPAs, o.ThrottledSharedHPAs, o.CPUHPAs))
	}
	if o.DistinctMetrics && o.AllShared {
		errs = append(errs, errors.New("a workload cannot have distinct metrics only and shared metrics only"))
	}
	if o.CPUUtilization && (o.DistinctMetrics || o.AllShared || o.SlowHPAs > 0) {
		errs = append(errs, errors.New("a CPU utilization workload has no External metrics to make distinct, shared or slow"))
	}
	// A scenario's latency HPAs are the first of its HPAs.
	for name, n := range map[string]int{"distinct-hpas": o.DistinctHPAs, "throttled-hpas": o.ThrottledHPAs, "throttled-shared-hpas": o.ThrottledSharedHPAs, "cpu-hpas": o.CPUHPAs} {
		if n > 0 && n < o.LatencyHPAs {
			errs = append(errs, fmt.Errorf("%s must be 0 or at least latency-hpas (%d), got %d", name, o.LatencyHPAs, n))
		}
	}
	if o.ThrottledHPAs > 0 || o.ThrottledSharedHPAs > 0 {
		if o.ThrottledQPS <= 0 || o.ThrottledBurst < 1 {
			errs = append(errs, fmt.Errorf("throttled-qps and throttled-burst must be positive, got %v and %d", o.ThrottledQPS, o.ThrottledBurst))
		}
		if o.ThrottledWindow <= 0 || o.ThrottledWarmUpLimit <= 0 {
			errs = append(errs, fmt.Errorf("throttled-window and throttled-warm-up-limit must be positive, got %v and %v", o.ThrottledWindow, o.ThrottledWarmUpLimit))
		}
	}
	if o.SlowTenants {
		if o.SlowTenantHPAs < 1 || o.SlowTenantShare <= 0 || o.SlowTenantShare >= 1 {
			errs = append(errs, fmt.Errorf("slow-tenants-hpas must be positive and slow-tenants-share between 0 and 1, got %d and %v", o.SlowTenantHPAs, o.SlowTenantShare))
		}
		if o.SlowTenantDelay <= 0 || o.SlowTenantWindow < o.SyncPeriod {
			errs = append(errs, fmt.Errorf("slow-tenants-delay must be positive and slow-tenants-window at least one sync period, got %v and %v", o.SlowTenantDelay, o.SlowTenantWindow))
		}
		errs = append(errs, o.validateSlowTenantModes()...)
	}
	if o.SlowHPAs < 0 || o.SlowHPAs > o.HPAs-o.LatencyHPAs || (o.SlowHPAs > 0 && (!o.DistinctMetrics || (!o.SlowMode.failsMidRun() && o.SlowDelay <= 0))) {
		errs = append(errs, fmt.Errorf("%d slow HPAs need distinct metrics, no more than the HPAs that are not latency HPAs (%d), and in the delay mode a delay", o.SlowHPAs, o.HPAs-o.LatencyHPAs))
	}
	if o.Ramp && o.RampHold < o.SyncPeriod {
		errs = append(errs, fmt.Errorf("ramp-hold must be at least one sync period, got %v", o.RampHold))
	}
	if o.PodsPerHPA < 0 || o.ClusterClientQPS < 0 || o.ClusterClientBurst < 0 || o.ClusterWorkloadSyncs < 0 {
		errs = append(errs, fmt.Errorf("pods per HPA and the cluster's client limits and syncs must not be negative (0 keeps the default), got %d, %v, %d and %d",
			o.PodsPerHPA, o.ClusterClientQPS, o.ClusterClientBurst, o.ClusterWorkloadSyncs))
	}
	if o.Namespaces < 0 || o.Namespaces > max(o.HPAs, 1) {
		errs = append(errs, fmt.Errorf("namespaces must be from 0 to the HPAs (%d), got %d", o.HPAs, o.Namespaces))
	}
	if o.Scaling {
		errs = append(errs, o.validateScaling()...)
	}
	if !o.DefaultScenario && o.DistinctHPAs == 0 && o.ThrottledHPAs == 0 && o.ThrottledSharedHPAs == 0 && o.CPUHPAs == 0 && !o.SlowTenants && !o.Ramp && !o.Scaling {
		errs = append(errs, errors.New("nothing to measure: every scenario is off"))
	}
	if o.Workers < 1 || o.QPS <= 0 || o.Burst < 1 {
		errs = append(errs, errors.New("workers, qps and burst must be positive"))
	}
	if len(o.Controllers) == 0 {
		errs = append(errs, errors.New("at least one controller to measure"))
	}
	for _, c := range o.Controllers {
		if !slices.Contains(knownControllers, c) && !o.shardedController(c) {
			errs = append(errs, fmt.Errorf("unknown controller %q: want one of %v", c, knownControllers))
		}
	}
	return errors.Join(errs...)
}

// saturationSyncPeriod resolves the zero default: about 4,000 HPAs due per
// second, twice what either controller reconciles on two cores, so the
// queue stays full.
func (o Options) saturationSyncPeriod() time.Duration {
	if o.SaturationSyncPeriod > 0 {
		return o.SaturationSyncPeriod
	}
	d := time.Duration(o.HPAs) * time.Second / 4000
	return min(max(d, 20*time.Millisecond), time.Second)
}
