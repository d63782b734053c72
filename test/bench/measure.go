package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// measureController runs one controller twice: at the steady sync period
// (CPU, requests and fetches per reconcile, then the latency of a metric
// change), and at the saturation sync period (throughput).
func (r *runner) measureController(ctx context.Context, spec controllerSpec) (ControllerResult, error) {
	res := ControllerResult{Name: spec.name}
	o := r.opts

	c, err := startController(ctx, spec, o.SyncPeriod, filepath.Join(r.dir, spec.name+"-steady.log"))
	if err != nil {
		return res, err
	}
	steady, latency, rss, err := r.steadyPhase(ctx, c)
	c.stop()
	if err != nil {
		return res, err
	}
	res.Steady, res.Latency, res.PeakRSSBytes = steady, latency, rss
	if err := resetLatencyWorkload(ctx, r.kube, o); err != nil {
		return res, err
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

// steadyPhase waits for one full pass over the HPAs and one more sync
// period (the first pass writes statuses), measures one window, then the
// latency of a metric change.
func (r *runner) steadyPhase(ctx context.Context, c *runningController) (Phase, Latency, int64, error) {
	o := r.opts
	if err := waitReconciles(ctx, c, float64(o.HPAs), 3*o.SyncPeriod+2*time.Minute); err != nil {
		return Phase{}, Latency{}, 0, err
	}
	if err := sleep(ctx, o.SyncPeriod, c); err != nil {
		return Phase{}, Latency{}, 0, err
	}
	d, err := r.window(ctx, c, o.Window)
	if err != nil {
		return Phase{}, Latency{}, 0, err
	}
	r.logger.Info("Steady window measured", "controller", c.spec.name, "reconciles", d.reconciles, "queueWaits", d.queueWaits, "queueDepth", d.queueDepth)
	// A metric change waits for the HPA's next sync, and for a controller
	// that shares fetches, for the shared value to expire: up to about two
	// periods, plus the adapter's and the watch's delays.
	latency, err := measureLatency(ctx, r.kube, o, 3*o.SyncPeriod+30*time.Second)
	if err != nil {
		return Phase{}, Latency{}, 0, err
	}
	rss, err := peakRSS(c.proc.pid())
	return phaseOf(d.lessBaseline(r.base), o.SyncPeriod), latency, rss, err
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
		prof, err = startPerf(c.proc.pid(), o.SaturationWindow, filepath.Join(r.dir, c.spec.name+".perf.data"))
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
	rss, err := peakRSS(c.proc.pid())
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

// waitReconciles waits until the controller has reconciled n times.
func waitReconciles(ctx context.Context, c *runningController, n float64, timeout time.Duration) error {
	var got float64
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.proc.alive(); err != nil {
			return false, err
		}
		var err error
		got, err = c.reconciles(ctx)
		return err == nil && got >= n, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %s to reconcile %.0f times (%.0f so far): %w", c.spec.name, n, got, err)
	}
	return nil
}
