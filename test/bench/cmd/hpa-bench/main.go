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

// Command hpa-bench measures kube-hpa's HPA controller side by side with
// upstream kube-controller-manager's on a local cluster (see package
// test/bench), prints the table and writes the JSON result.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/bench"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hpa-bench:", err)
		os.Exit(1)
	}
}

func run() error {
	o := bench.NewOptions()
	klog.InitFlags(nil)
	flag.IntVar(&o.HPAs, "hpas", o.HPAs, "Deployments and HPAs to create.")
	flag.IntVar(&o.LatencyHPAs, "latency-hpas", o.LatencyHPAs, "HPAs whose metric is changed to time the scale update.")
	flag.IntVar(&o.SharedGroupSize, "shared-group-size", o.SharedGroupSize, "HPAs per shared external metric (half of the others share).")
	flag.DurationVar(&o.SyncPeriod, "sync-period", o.SyncPeriod, "--horizontal-pod-autoscaler-sync-period of the steady phase.")
	flag.DurationVar(&o.Window, "window", o.Window, "Length of the steady measurement window.")
	flag.DurationVar(&o.SaturationSyncPeriod, "saturation-sync-period", o.SaturationSyncPeriod, "Sync period of the saturation phase; 0 picks hpas/4000 s within [20ms, 1s].")
	flag.DurationVar(&o.SaturationWarmUp, "saturation-warm-up", o.SaturationWarmUp, "Time before the saturation window.")
	flag.DurationVar(&o.SaturationWindow, "saturation-window", o.SaturationWindow, "Length of the saturation measurement window.")
	flag.IntVar(&o.Workers, "workers", o.Workers, "--concurrent-horizontal-pod-autoscaler-syncs of both controllers.")
	flag.Float64Var(&o.QPS, "kube-api-qps", o.QPS, "--kube-api-qps of both controllers.")
	flag.IntVar(&o.Burst, "kube-api-burst", o.Burst, "--kube-api-burst of both controllers.")
	controllers := flag.String("controllers", strings.Join(o.Controllers, ","), "Controllers to measure, in order: upstream, kube-hpa, and for diagnosis kube-hpa-no-sharing (sharing window 0) and upstream-json (--kube-api-content-type=application/json). Ratios are to the first.")
	flag.BoolVar(&o.Perf, "perf", false, "Record a perf profile of each controller's saturation window (needs perf).")
	flag.BoolVar(&o.SyncPeriodMix, "sync-period-mix", o.SyncPeriodMix, "Then measure kube-hpa alone on extended HPAs: the proposals' gates off, on, and on with a tenth of the HPAs at syncPeriodSeconds 3.")
	kubeHPAFlags := flag.String("kube-hpa-flags", "", "Flags added to every run of hpa-controller-manager, separated by spaces (for a flag that is not yet its default).")
	flag.IntVar(&o.DistinctHPAs, "distinct-hpas", o.DistinctHPAs, "HPAs of the distinct-metrics scenario, each with an external metric of its own, on a cluster of its own; 0 skips it.")
	flag.IntVar(&o.ThrottledHPAs, "throttled-hpas", o.ThrottledHPAs, "HPAs of the scenario at kube-controller-manager's default client limits, on a cluster of its own (steady window only); 0 skips it.")
	flag.IntVar(&o.ThrottledSharedHPAs, "throttled-shared-hpas", o.ThrottledSharedHPAs, "HPAs of the same scenario on a workload where every HPA shares a metric in groups of shared-group-size, on a cluster of its own; 0 skips it.")
	flag.IntVar(&o.CPUHPAs, "cpu-hpas", o.CPUHPAs, "HPAs of the CPU utilization scenario, each on its Deployment's CPU at 50% of requests through metrics-server, on a cluster of its own; 0 skips it.")
	flag.Float64Var(&o.ThrottledQPS, "throttled-qps", o.ThrottledQPS, "--kube-api-qps of both controllers in the throttled scenario.")
	flag.IntVar(&o.ThrottledBurst, "throttled-burst", o.ThrottledBurst, "--kube-api-burst of both controllers in the throttled scenario.")
	flag.DurationVar(&o.ThrottledWarmUpLimit, "throttled-warm-up-limit", o.ThrottledWarmUpLimit, "Longest wait for a first pass in the throttled scenario, from the controller's start; a controller that cannot make one is measured anyway.")
	flag.DurationVar(&o.ThrottledWindow, "throttled-window", o.ThrottledWindow, "Length of the throttled scenario's steady window.")
	flag.BoolVar(&o.DefaultScenario, "default-scenario", o.DefaultScenario, "Measure the default workload (and the sync period mix after it); false runs the other scenarios alone.")
	flag.BoolVar(&o.SkipLatency, "skip-latency", o.SkipLatency, "Leave out the latency phase of the default, distinct-metrics and scaling scenarios.")
	flag.BoolVar(&o.SkipSaturation, "skip-saturation", o.SkipSaturation, "Leave out the saturation phase of the default and distinct-metrics scenarios.")
	flag.BoolVar(&o.SlowTenants, "slow-tenants", o.SlowTenants, "Add the slow-tenants scenario, on a cluster of its own: HPAs of distinct metrics, a share of them answered only after a delay; reports the share of healthy HPAs reconciled per sync period.")
	flag.IntVar(&o.SlowTenantHPAs, "slow-tenants-hpas", o.SlowTenantHPAs, "HPAs of the slow-tenants scenario.")
	flag.Float64Var(&o.SlowTenantShare, "slow-tenants-share", o.SlowTenantShare, "Share of the slow-tenants scenario's HPAs whose metric is slow.")
	flag.DurationVar(&o.SlowTenantDelay, "slow-tenants-delay", o.SlowTenantDelay, "How long the adapter holds each answer of a slow metric.")
	flag.DurationVar(&o.SlowTenantWindow, "slow-tenants-window", o.SlowTenantWindow, "Length of the slow-tenants scenario's steady window (whole sync periods count).")
	slowTenantModes := flag.String("slow-tenants-mode", bench.FormatSlowTenantsModes(o.SlowTenantModes), "How the slow tenants' provider misbehaves, one scenario per mode, each on a cluster of its own, separated by commas: "+
		"delay (every answer after -slow-tenants-delay, from the start); mid-run (fast until the steady window, then hanging); flap (fast until the steady window, then in turn failing fast and hanging, changing every -slow-tenants-flap-period). "+
		"mid-run and flap also time the healthy HPAs' metric changes before and after the failures began (-latency-hpas of them), and give kube-hpa's slow HPAs a fallback after -slow-tenants-fallback-after whose lateness the table reports "+
		"(about 4 minutes per controller and mode, besides the cluster's start).")
	flag.DurationVar(&o.SlowTenantFlapPeriod, "slow-tenants-flap-period", o.SlowTenantFlapPeriod, "How long each fault lasts in the flap mode; 0 is one sync period.")
	flag.DurationVar(&o.SlowTenantFallbackAfter, "slow-tenants-fallback-after", o.SlowTenantFallbackAfter, "failureDurationSeconds of the slow HPAs' fallback in the mid-run and flap modes (kube-hpa's extended HPAs; upstream has none): from 3m to 24h.")
	flag.BoolVar(&o.Ramp, "ramp", o.Ramp, "Measure the ramp, on a cluster of its own: a few Deployments whose metric jumps at a known time, scaled up under different behaviors (about 2 minutes per controller).")
	flag.DurationVar(&o.RampHold, "ramp-hold", o.RampHold, "Longest the ramp's metrics stay raised; a controller's ramp ends sooner once every Deployment has its target.")
	flag.BoolVar(&o.Scaling, "scaling", o.Scaling, "Add the scaling scenario, last: for each of -scaling-sizes, on a cluster of its own, that many Deployments of -scaling-pods-per-hpa kwok pods and as many HPAs (the default workload's metrics), "+
		"each controller's steady window and latency phase; a size that does not fit records why, and the larger ones are not tried (after each size the run so far is in the run directory's scaling/latest.json). Afterwards hpa-bench writes "+
		"scaling.svg (memory and CPU per 1,000 reconciles against the HPAs) into -output-dir by go run of the plot module "+bench.PlotModule+" (cd test/bench/plot && go run . -in <json> -out <svg> redraws it). "+
		"About an hour on 2 cores at the default sizes.")
	scalingSizes := flag.String("scaling-sizes", bench.FormatSizes(o.ScalingSizes), "HPA counts of the scaling scenario, ascending, separated by commas.")
	scalingReplicas := flag.String("scaling-replicas", "", "Replica counts (2 or more, separated by commas) of kube-hpa with --sharded that the scaling scenario measures at each size besides kube-hpa alone, each as kube-hpa-x<n>: per-replica RSS and CPU, kube-apiserver's watch egress, passes per HPA and period.")
	flag.IntVar(&o.ScalingNamespaces, "scaling-namespaces", o.ScalingNamespaces, "Spread each scaling size's workload over this many namespaces (blocks of consecutive HPAs, t<k>-hpa-bench), as a multi-tenant cluster's, which -scaling-replicas' sharded replicas divide by namespace; 0 or 1 keeps it in one.")
	flag.IntVar(&o.ScalingPodsPerHPA, "scaling-pods-per-hpa", o.ScalingPodsPerHPA, "Ready pods of each Deployment in the scaling scenario, which its HPA holds steady.")
	flag.StringVar(&o.ControllerBinary, "controller-binary", "", "hpa-controller-manager to measure; default _output/bin/hpa-controller-manager.")
	flag.StringVar(&o.UpstreamBinary, "upstream-binary", "", "kube-controller-manager to measure; default _output/bin/kube-controller-manager (linked without symbols: build one with them for -perf).")
	flag.StringVar(&o.OutputDir, "output-dir", "", "Where results and logs go; default _output/bench.")
	flag.Parse()
	o.Controllers = strings.Split(*controllers, ",")
	o.KubeHPAFlags = strings.Fields(*kubeHPAFlags)
	var err error
	if o.SlowTenantModes, err = bench.ParseSlowTenantsModes(*slowTenantModes); err != nil {
		return fmt.Errorf("-slow-tenants-mode: %w", err)
	}
	if o.ScalingSizes, err = bench.ParseSizes(*scalingSizes); err != nil {
		return err
	}
	if *scalingReplicas != "" {
		if o.ScalingReplicas, err = bench.ParseSizes(*scalingReplicas); err != nil {
			return fmt.Errorf("-scaling-replicas: %w", err)
		}
	}

	root, err := localcluster.FindRepoRoot()
	if err != nil {
		return err
	}
	o.RepoRoot = root
	o.BinDir = filepath.Join(root, "_output", "bin")
	if o.ControllerBinary == "" {
		o.ControllerBinary = filepath.Join(o.BinDir, "hpa-controller-manager")
	}
	if o.UpstreamBinary == "" {
		o.UpstreamBinary = filepath.Join(o.BinDir, "kube-controller-manager")
	}
	if o.OutputDir == "" {
		o.OutputDir = filepath.Join(root, "_output", "bench")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = klog.NewContext(ctx, klog.Background())
	res, runErr := bench.Run(ctx, o)
	if res == nil {
		return runErr
	}
	// A run that failed in a later scenario still writes the tables it
	// finished, then reports the failure.
	path, err := bench.WriteJSON(res, o.OutputDir)
	if err != nil {
		return errors.Join(runErr, err)
	}
	var table strings.Builder
	if err := bench.WriteReport(&table, res); err != nil {
		return errors.Join(runErr, err)
	}
	if err := os.WriteFile(filepath.Join(o.OutputDir, "latest.txt"), []byte(table.String()), 0o644); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Print("\n" + table.String())
	fmt.Printf("\nJSON: %s\n", path)
	if res.Scaling != nil {
		// Drawn even after an interrupt: the sizes measured are in the JSON.
		plotCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
		defer cancel()
		svg := filepath.Join(o.OutputDir, "scaling.svg")
		if err := bench.PlotScaling(plotCtx, root, filepath.Join(o.OutputDir, "latest.json"), svg); err != nil {
			return errors.Join(runErr, err)
		}
		fmt.Printf("Plot: %s\n", svg)
	}
	return runErr
}
