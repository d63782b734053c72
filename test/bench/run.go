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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// runner holds what every phase of a run needs.
type runner struct {
	opts    Options
	dir     string
	cluster *localcluster.Cluster
	kube    kubernetes.Interface
	probes  probes
	base    delta
	logger  klog.Logger
}

// Run measures each scenario of o in turn (scenario.go), then the ramp
// (ramp.go), each on a local cluster of its own: it creates the workload,
// measures each controller of Options.Controllers and stops the cluster. The clusters' and the
// controllers' logs stay in a run directory under Options.OutputDir, one
// subdirectory per scenario. When a scenario fails, Run returns what the
// scenarios before it measured along with the error: a long run keeps its
// finished tables.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	res := &Result{Started: started, Machine: describeMachine()}
	dir := filepath.Join(o.OutputDir, "run-"+started.Format("20060102-150405"))
	// failed returns what was measured before err, or nothing when nothing was.
	failed := func(i int, name string, err error) (*Result, error) {
		err = fmt.Errorf("scenario %s: %w", name, err)
		if i == 0 {
			return nil, err
		}
		return res, err
	}
	scenarios := o.scenarios()
	for i, sc := range scenarios {
		klog.FromContext(ctx).Info("Measuring a scenario", "scenario", sc.name, "hpas", sc.opts.HPAs)
		sr, mix, err := runScenario(ctx, sc, filepath.Join(dir, sc.name))
		if err != nil {
			return failed(i, sc.name, err)
		}
		if sc.name == ScenarioDefault {
			res.ScenarioResult, res.Mix = sr, mix
		} else {
			res.Scenarios = append(res.Scenarios, sr)
		}
	}
	if o.Ramp {
		klog.FromContext(ctx).Info("Measuring a scenario", "scenario", ScenarioRamp, "deployments", len(rampCases))
		ramp, err := runRamp(ctx, o, filepath.Join(dir, ScenarioRamp))
		res.Ramp = ramp
		if err != nil {
			return failed(len(scenarios), ScenarioRamp, err)
		}
	}
	if o.Scaling {
		klog.FromContext(ctx).Info("Measuring a scenario", "scenario", ScenarioScaling, "sizes", o.ScalingSizes, "podsPerHPA", o.ScalingPodsPerHPA)
		// Only the run's end stops it: a size that fails is recorded in
		// the result, with the sizes measured before it. After each size
		// the run so far goes to the scenario's directory, so that a
		// benchmark that dies keeps what it measured.
		scalingDir := filepath.Join(dir, ScenarioScaling)
		checkpoint := func(s *ScalingResult) {
			sofar := *res
			sofar.Scaling = s
			if _, err := WriteJSON(&sofar, scalingDir); err != nil {
				klog.FromContext(ctx).Error(err, "Writing the scaling sizes measured so far")
			}
		}
		scaling, err := runScaling(ctx, o, scalingDir, checkpoint)
		res.Scaling = scaling
		if err != nil {
			return res, fmt.Errorf("scenario %s: %w", ScenarioScaling, err)
		}
	}
	return res, nil
}

// runScenario starts a local cluster, creates the scenario's workload and
// measures each controller, then the sync period mix when asked to.
func runScenario(ctx context.Context, sc scenario, dir string) (ScenarioResult, *MixResult, error) {
	o := sc.opts
	res := ScenarioResult{Name: sc.name, Setup: o.setup()}
	r := &runner{opts: o, logger: klog.FromContext(ctx), dir: dir}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return res, nil, err
	}
	cluster, kube, err := startCluster(ctx, o)
	if err != nil {
		return res, nil, err
	}
	r.cluster, r.kube = cluster, kube
	defer func() {
		if err := cluster.Stop(); err != nil {
			r.logger.Error(err, "Stopping the local cluster")
		}
	}()

	begin := time.Now()
	ad, err := r.prepare(ctx)
	if err != nil {
		return res, nil, err
	}
	res.WorkloadReadySeconds = time.Since(begin).Seconds()
	defer func() {
		if err := ad.stop(context.WithoutCancel(ctx), cluster); err != nil {
			r.logger.Error(err, "Stopping the metrics adapter")
		}
	}()
	if res.Baseline, err = r.measureBaseline(ctx); err != nil {
		return res, nil, err
	}
	specs, err := controllerSpecs(o, cluster.Kubeconfig(), r.dir)
	if err != nil {
		return res, nil, err
	}
	for _, name := range o.Controllers {
		r.logger.Info("Measuring a controller", "scenario", sc.name, "controller", name)
		cr, err := r.measureController(ctx, specs[name])
		if err != nil {
			err = fmt.Errorf("measuring %s (logs in %s): %w", name, r.dir, err)
			if !o.RecordControllerErrors || ctx.Err() != nil {
				return res, nil, err
			}
			r.logger.Error(err, "Recorded; measuring the next controller", "scenario", sc.name)
			cr.Error = err.Error()
			res.Controllers = append(res.Controllers, cr)
			// The failure may have come in the latency phase, with some
			// Deployments still scaled up.
			if !o.SkipLatency {
				if err := resetLatencyWorkload(ctx, r.kube, o); err != nil {
					return res, nil, fmt.Errorf("resetting the workload after %s failed: %w", name, err)
				}
			}
			continue
		}
		res.Controllers = append(res.Controllers, cr)
	}
	if !o.SyncPeriodMix {
		return res, nil, nil
	}
	mix, err := r.measureMix(ctx, specs)
	if err != nil {
		return res, nil, fmt.Errorf("measuring the sync period mix (logs in %s): %w", r.dir, err)
	}
	return res, mix, nil
}

// startCluster starts a local cluster for one scenario, and a client of it
// for the workload's creation.
func startCluster(ctx context.Context, o Options) (*localcluster.Cluster, kubernetes.Interface, error) {
	cluster, err := localcluster.Start(ctx, o.clusterOptions())
	if err != nil {
		return nil, nil, err
	}
	cfg := cluster.RESTConfig()
	cfg.QPS, cfg.Burst = 500, 1000 // the workload's creation, not what is measured
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, errors.Join(err, cluster.Stop())
	}
	return cluster, kube, nil
}

// clusterOptions are test/localcluster's options for a scenario's cluster:
// its own kube-controller-manager and kube-scheduler at the client limits
// and syncs of Options.ClusterClientQPS and the fields after it, where set
// (a later flag of the same name wins over localcluster's).
func (o Options) clusterOptions() localcluster.Options {
	co := localcluster.Options{RepoRoot: o.RepoRoot, BinDir: o.BinDir, MetricsServer: true}
	var limits []string
	if o.ClusterClientQPS > 0 {
		limits = append(limits, "--kube-api-qps="+strconv.FormatFloat(o.ClusterClientQPS, 'f', -1, 64))
	}
	if o.ClusterClientBurst > 0 {
		limits = append(limits, "--kube-api-burst="+strconv.Itoa(o.ClusterClientBurst))
	}
	co.ExtraControllerManagerFlags = slices.Clone(limits)
	co.ExtraSchedulerFlags = limits
	if n := o.ClusterWorkloadSyncs; n > 0 {
		co.ExtraControllerManagerFlags = append(co.ExtraControllerManagerFlags,
			"--concurrent-deployment-syncs="+strconv.Itoa(n), "--concurrent-replicaset-syncs="+strconv.Itoa(n))
	}
	if len(o.ScalingReplicas) > 0 {
		// Sharded replicas receive only their shards' objects where
		// kube-apiserver honors their shardSelector; no other controller
		// sends one, so their figures do not change.
		co.FeatureGates = map[string]bool{"ShardedListAndWatch": true}
	}
	return co
}

func (o Options) setup() Setup {
	distinct := distinctMetrics(o)
	if o.CPUUtilization {
		distinct = o.HPAs // one PodMetrics list per HPA and pass
	}
	s := Setup{
		HPAs:                     o.HPAs,
		Namespaces:               o.spreadNamespaces(),
		PodsPerHPA:               o.podsPerHPA(),
		LatencyHPAs:              o.LatencyHPAs,
		SharedGroupSize:          o.SharedGroupSize,
		DistinctMetrics:          distinct,
		SyncPeriod:               o.SyncPeriod.String(),
		Workers:                  o.Workers,
		QPS:                      o.QPS,
		Burst:                    o.Burst,
		IdealFetchesPerReconcile: float64(distinct) / float64(o.HPAs),
		MetricsAPI:               o.metricsAPI(),
		DistinctOnly:             o.DistinctMetrics,
		Window:                   o.Window.String(),
		Latency:                  !o.SkipLatency && o.LatencyHPAs > 0,
		Saturation:               !o.SkipSaturation,
		SlowHPAs:                 o.SlowHPAs,
	}
	switch {
	case o.SlowHPAs > 0 && o.SlowMode.failsMidRun():
		s.SlowMode, s.FallbackAfter = string(o.SlowMode), o.FallbackAfter.String()
		if o.SlowMode == SlowModeFlap {
			s.FlapPeriod = o.flapPeriod().String()
		}
	case o.SlowHPAs > 0:
		s.SlowDelay = o.SlowDelay.String()
	}
	if s.Saturation {
		s.SaturationSyncPeriod = o.saturationSyncPeriod().String()
	}
	if o.WarmUpLimit > 0 {
		s.WarmUpLimit = o.WarmUpLimit.String()
	}
	return s
}

// clusterComponents are the processes of test/localcluster, found by their
// binary name and the run directory in their command line.
var clusterComponents = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// prepare creates the workload, starts the adapter and waits until every
// Deployment has its ready pods.
func (r *runner) prepare(ctx context.Context) (*adapter, error) {
	begin := time.Now()
	if err := checkPodCapacity(ctx, r.kube, r.opts.workloadPods()+r.opts.latencyPods()); err != nil {
		return nil, err
	}
	if err := r.cluster.CreateNamespace(ctx, Namespace); err != nil {
		return nil, err
	}
	if err := createWorkload(ctx, r.kube, r.opts); err != nil {
		return nil, err
	}
	ad, err := startAdapter(ctx, r.cluster, r.opts.BinDir, r.dir)
	if err != nil {
		return nil, err
	}
	if err := waitSettled(ctx, r.kube, r.opts, r.opts.settleTimeout()); err != nil {
		return nil, errors.Join(err, ad.stop(ctx, r.cluster))
	}
	provider, err := newMetricsProvider(r.opts, ad, r.cluster)
	if err != nil {
		return nil, errors.Join(err, ad.stop(ctx, r.cluster))
	}
	r.probes = probes{kube: r.kube, adapter: ad, provider: provider}
	for _, name := range clusterComponents {
		pid, err := findProcess(name, r.cluster.RunDir())
		if err != nil {
			return nil, errors.Join(err, ad.stop(ctx, r.cluster))
		}
		if name == "kube-apiserver" {
			r.probes.apiServerPID = pid
		}
		r.probes.clusterPIDs = append(r.probes.clusterPIDs, pid)
	}
	r.logger.Info("Workload ready", "hpas", r.opts.HPAs, "pods", r.opts.workloadPods(), "took", time.Since(begin).Round(time.Second))
	return ad, nil
}

// measureBaseline measures the idle cluster over one window, after a few
// seconds for the creation's aftermath (events, status updates) to pass.
func (r *runner) measureBaseline(ctx context.Context) (Phase, error) {
	if err := sleep(ctx, 10*time.Second, nil); err != nil {
		return Phase{}, err
	}
	s0, err := r.probes.take(ctx, nil)
	if err != nil {
		return Phase{}, err
	}
	if err := sleep(ctx, r.opts.Window, nil); err != nil {
		return Phase{}, err
	}
	s1, err := r.probes.take(ctx, nil)
	if err != nil {
		return Phase{}, err
	}
	r.base = s0.until(s1)
	return baselinePhase(r.base), nil
}

// sleep waits for d, failing early when ctx ends or the controller exits.
func sleep(ctx context.Context, d time.Duration, c *runningController) error {
	deadline := time.After(d)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return nil
		case <-tick.C:
			if c != nil {
				if err := c.alive(); err != nil {
					return err
				}
			}
		}
	}
}

// WriteJSON writes res under dir as hpa-bench-<hpas>-<time>.json and as
// latest.json, and returns the first path.
func WriteJSON(res *Result, dir string) (string, error) {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	hpas := res.Setup.HPAs
	if hpas == 0 && len(res.Scenarios) > 0 { // the default scenario left out
		hpas = res.Scenarios[0].Setup.HPAs
	}
	if hpas == 0 && res.Scaling != nil && len(res.Scaling.Sizes) > 0 { // the scaling scenario alone: its largest size
		hpas = res.Scaling.Sizes[len(res.Scaling.Sizes)-1].Setup.HPAs
	}
	path := filepath.Join(dir, fmt.Sprintf("hpa-bench-%d-%s.json", hpas, res.Started.Format("20060102-150405")))
	for _, p := range []string{path, filepath.Join(dir, "latest.json")} {
		if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}
