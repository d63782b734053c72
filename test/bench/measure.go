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
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// measureController runs one controller twice: at the steady sync period
// (CPU, requests and fetches per reconcile, then the latency of a metric
// change), and at the saturation sync period (throughput). A scenario may
// leave out the latency and the saturation phases. In the slow-tenants
// modes that fail mid-run, a controller of the extended kind finds the
// slow HPAs of that kind, with their fallback, while it runs.
func (r *runner) measureController(ctx context.Context, spec controllerSpec) (ControllerResult, error) {
	if !r.opts.SlowMode.failsMidRun() || !spec.extended {
		return r.measurePhases(ctx, spec)
	}
	// The fallback is the extended kind's alone (slowfallback.go).
	if err := r.useExtendedSlowHPAs(ctx, true); err != nil {
		return ControllerResult{Name: spec.name}, err
	}
	res, err := r.measurePhases(ctx, spec)
	return res, errors.Join(err, r.useExtendedSlowHPAs(context.WithoutCancel(ctx), false))
}

// measurePhases is measureController on the workload as it is.
func (r *runner) measurePhases(ctx context.Context, spec controllerSpec) (ControllerResult, error) {
	res := ControllerResult{Name: spec.name}
	o := r.opts

	c, err := startController(ctx, spec, o.SyncPeriod, filepath.Join(r.dir, spec.name+"-steady.log"))
	if err != nil {
		return res, err
	}
	steady, err := r.steadyPhase(ctx, c)
	c.stop()
	if err != nil {
		return res, err
	}
	res.Steady, res.WarmUp, res.Latency, res.PeakRSSBytes = steady.phase, steady.warmUp, steady.latency, steady.rss
	res.SteadyRSSBytes, res.PassGaps, res.SlowFaults = steady.steadyRSS, steady.passGaps, steady.faults
	if spec.replicas > 1 {
		res.Replicas, res.ReplicaPeakRSSBytes, res.ReplicaSteadyRSSBytes = spec.replicas, steady.replicaRSS, steady.replicaSteadyRSS
	}
	// The next phase, or the next controller, starts from the steady
	// workload.
	if !o.SkipLatency {
		if err := resetLatencyWorkload(ctx, r.kube, o); err != nil {
			return res, err
		}
	}
	if o.SkipSaturation {
		return res, nil
	}

	sync := o.saturationSyncPeriod()
	c, err = startController(ctx, spec, sync, filepath.Join(r.dir, spec.name+"-saturation.log"))
	if err != nil {
		return res, err
	}
	saturation, profile, rss, err := r.saturationPhase(ctx, c)
	c.stop()
	if err != nil {
		return res, err
	}
	res.Saturation, res.Profile, res.PeakRSSBytes = saturation, profile, max(res.PeakRSSBytes, rss)
	return res, nil
}

// steadyResult is what the steady phase measures.
type steadyResult struct {
	phase   Phase
	warmUp  WarmUp
	latency Latency
	// rss is the peak so far at the phase's end, steadyRSS the resident
	// memory at the steady window's: the largest replica's, and each
	// replica's in replicaRSS and replicaSteadyRSS.
	rss, steadyRSS               int64
	replicaRSS, replicaSteadyRSS []int64
	// passGaps is read when Options.FetchTimes asks for it.
	passGaps *PassGaps
	// faults is measured in the slow-tenants modes that fail mid-run.
	faults *SlowFaults
}

// steadyPhase waits for one full pass over the HPAs (or the warm-up
// limit) and one more sync period (the first pass writes statuses),
// measures one window (and the gaps between passes in it, when asked
// to), then the latency of a metric change. In the slow-tenants modes
// that fail mid-run, a first latency phase comes before the window, the
// slow metric fails from the window on, and the slow HPAs' fallbacks are
// awaited last.
func (r *runner) steadyPhase(ctx context.Context, c *runningController) (steadyResult, error) {
	o := r.opts
	var res steadyResult
	var err error
	if res.warmUp, err = r.warmUp(ctx, c); err != nil {
		return res, err
	}
	if err := sleep(ctx, o.SyncPeriod, c); err != nil {
		return res, err
	}
	// In the slow-tenants modes that fail mid-run, the slow metric fails
	// from the window on (slowfaults.go); nil in every other scenario.
	faults, err := r.startFaults(ctx, c)
	if err != nil {
		return res, err
	}
	defer func() {
		if err := faults.stop(context.WithoutCancel(ctx)); err != nil {
			r.logger.Error(err, "Ending the slow tenants' failures", "controller", c.spec.name)
		}
	}()
	d, err := r.window(ctx, c, o.Window)
	if err != nil {
		return res, err
	}
	r.logger.Info("Steady window measured", "controller", c.spec.name, "reconciles", d.reconciles, "queueWaits", d.queueWaits, "queueDepth", d.queueDepth)
	res.phase = phaseOf(d.lessBaseline(r.base), o.SyncPeriod)
	if res.steadyRSS, res.replicaSteadyRSS, err = c.perReplica(currentRSS); err != nil {
		return res, err
	}
	if o.FetchTimes {
		if res.passGaps, err = r.passGaps(ctx, c, d); err != nil {
			return res, err
		}
	}
	if !o.SkipLatency {
		change := firstLatencyChange(r.kube, o)
		if faults != nil {
			change = secondLatencyChange(r.kube, o)
		}
		if res.latency, err = measureLatency(ctx, r.kube, o, change, o.latencyTimeout()); err != nil {
			return res, err
		}
	}
	if faults != nil {
		if res.faults, err = faults.finish(ctx); err != nil {
			return res, err
		}
	}
	res.rss, res.replicaRSS, err = c.perReplica(peakRSS)
	return res, err
}

// latencyTimeout bounds a latency phase after its last change. A metric
// change waits for the HPA's next sync, and for a controller that shares
// fetches, for the shared value to expire: up to about two periods, plus
// the adapter's and the watch's delays.
func (o Options) latencyTimeout() time.Duration { return 3*o.SyncPeriod + 30*time.Second }

// warmUp waits until the controller has reconciled as many times as there
// are HPAs. Without a warm-up limit, not getting there in three periods
// and two minutes is an error; with one, the wait ends at the limit and
// the result says how far the controller got.
func (r *runner) warmUp(ctx context.Context, c *runningController) (WarmUp, error) {
	o := r.opts
	limit := 3*o.SyncPeriod + 2*time.Minute
	if o.WarmUpLimit > 0 {
		limit = o.WarmUpLimit - time.Since(c.started)
	}
	got, err := waitReconciles(ctx, c, float64(o.HPAs), limit)
	w := WarmUp{Seconds: time.Since(c.started).Seconds(), Reconciles: got, Complete: err == nil}
	if err != nil && (o.WarmUpLimit == 0 || ctx.Err() != nil || !wait.Interrupted(err)) {
		return w, err
	}
	r.logger.Info("Warmed up", "controller", c.spec.name, "seconds", int(w.Seconds), "reconciles", got, "firstPassComplete", w.Complete)
	return w, nil
}

// saturationPhase lets the queue fill during the warm-up, then measures
// one window, profiling it with perf when asked to.
func (r *runner) saturationPhase(ctx context.Context, c *runningController) (Phase, string, int64, error) {
	o := r.opts
	if err := sleep(ctx, o.SaturationWarmUp, c); err != nil {
		return Phase{}, "", 0, err
	}
	var prof *perfRecording
	if o.Perf {
		var err error
		prof, err = startPerf(c.pids()[0], o.SaturationWindow, filepath.Join(r.dir, c.spec.name+".perf.data"))
		if err != nil {
			r.logger.Error(err, "Not profiling", "controller", c.spec.name)
		}
	}
	d, err := r.window(ctx, c, o.SaturationWindow)
	if err != nil {
		return Phase{}, "", 0, err
	}
	var profile string
	if prof != nil {
		if profile, err = prof.report(); err != nil {
			r.logger.Error(err, "perf report", "controller", c.spec.name)
		}
	}
	r.logger.Info("Saturation window measured", "controller", c.spec.name, "reconciles", d.reconciles)
	rss, _, err := c.perReplica(peakRSS)
	sync := o.saturationSyncPeriod()
	phase := phaseOf(d.lessBaseline(r.base), sync)
	phase.Saturated = phase.ReconcilesPerSecond < 0.9*float64(o.HPAs)/sync.Seconds()
	return phase, profile, rss, err
}

// window takes a snapshot, waits length and takes another.
func (r *runner) window(ctx context.Context, c *runningController, length time.Duration) (delta, error) {
	s0, err := r.probes.take(ctx, c)
	if err != nil {
		return delta{}, err
	}
	if err := sleep(ctx, length, c); err != nil {
		return delta{}, err
	}
	s1, err := r.probes.take(ctx, c)
	if err != nil {
		return delta{}, err
	}
	return s0.until(s1), nil
}

// waitReconciles waits until the controller has reconciled n times, and
// returns the count it last read.
func waitReconciles(ctx context.Context, c *runningController, n float64, timeout time.Duration) (float64, error) {
	var got float64
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.alive(); err != nil {
			return false, err
		}
		if count, err := c.reconciles(ctx); err == nil {
			got = count
		}
		return got >= n, nil
	})
	if err != nil {
		return got, fmt.Errorf("waiting for %s to reconcile %.0f times (%.0f so far): %w", c.spec.name, n, got, err)
	}
	return got, nil
}
