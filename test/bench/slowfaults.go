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
	"time"

	"k8s.io/client-go/kubernetes"
)

// The slow-tenants modes that fail mid-run (slowmode.go), on one
// controller's steady phase: the healthy HPAs' metric changes are timed
// while every metric answers fast; then the slow metric starts failing,
// and the steady window, a second latency phase and the wait for the slow
// HPAs' fallbacks all run with it failing.

// SlowFaults is what a controller did once the slow tenants' metric began
// failing mid-run.
type SlowFaults struct {
	// LatencyBefore is the healthy HPAs' latency just before the failures
	// began, every metric answering fast: the same controller, cluster
	// and HPAs as without slow tenants, what ControllerResult.Latency
	// (after the failures began) compares with.
	LatencyBefore Latency `json:"latencyBefore"`
	// FallbackLateness is, per slow HPA, the time from when its fallback
	// was due (the failures' start plus the fallback's failure duration)
	// until a watch saw its ExternalMetricFallbackActive condition True;
	// Missed counts those not seen within the wait. Nil for a controller
	// without the fallback (upstream).
	FallbackLateness *Latency `json:"fallbackLateness,omitempty"`
}

// faultRun is the slow metric's failures during one controller's steady
// phase.
type faultRun struct {
	r *runner
	// start is when the slow metric began to fail.
	start time.Time
	// cancel ends the flapping, and done is closed once it has ended;
	// both nil outside the flap mode.
	cancel context.CancelFunc
	done   chan struct{}
	// watch sees the slow HPAs' fallbacks; nil for a controller without.
	watch   *fallbackWatch
	result  SlowFaults
	stopped bool
}

// startFaults, in the modes that fail mid-run, times the healthy HPAs'
// metric changes, then has the slow metric fail from now on as the mode
// says; in the others it does nothing and returns nil.
func (r *runner) startFaults(ctx context.Context, c *runningController) (*faultRun, error) {
	o := r.opts
	if !o.SlowMode.failsMidRun() || o.SlowHPAs == 0 {
		return nil, nil
	}
	f := &faultRun{r: r}
	var err error
	if f.result.LatencyBefore, err = measureLatency(ctx, r.kube, o, firstLatencyChange(r.kube, o), o.latencyTimeout()); err != nil {
		return nil, err
	}
	r.logger.Info("Latency measured before the slow tenants fail", "controller", c.spec.name, "p99Seconds", f.result.LatencyBefore.P99)
	if c.spec.extended {
		// Watching before the failures: nothing is missed, and a
		// condition True already would be a fallback the failures did
		// not cause.
		if f.watch, err = startFallbackWatch(ctx, r.cluster.RESTConfig(), o); err != nil {
			return nil, err
		}
	}
	f.start = time.Now()
	if o.SlowMode == SlowModeFlap {
		err = f.flap(ctx)
	} else {
		err = setSlowFault(ctx, r.kube, o, faultHang)
	}
	if err != nil {
		return nil, errors.Join(err, f.stop(context.WithoutCancel(ctx)))
	}
	r.logger.Info("The slow tenants' metric fails", "controller", c.spec.name, "mode", o.SlowMode)
	return f, nil
}

// flap plays the flap schedule (flapAt) until stop: the first fault at
// once, each next one when due. A change the API server refuses is
// retried at the next one.
func (f *faultRun) flap(ctx context.Context) error {
	o, kube, logger := f.r.opts, f.r.kube, f.r.logger
	period := o.flapPeriod()
	fault, next := flapAt(f.start, f.start, period)
	if err := setSlowFault(ctx, kube, o, fault); err != nil {
		return err
	}
	ctx, f.cancel = context.WithCancel(ctx)
	f.done = make(chan struct{})
	go func() {
		defer close(f.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(next)):
			}
			var due string
			due, next = flapAt(f.start, time.Now(), period)
			if due == fault {
				continue
			}
			if err := setSlowFault(ctx, kube, o, due); err != nil {
				if ctx.Err() == nil {
					logger.Error(err, "Changing the slow metric's fault", "fault", due)
				}
				continue
			}
			fault = due
		}
	}()
	return nil
}

// finish waits, where the controller has the fallback, until a watch has
// seen every slow HPA's or the wait ran out, then ends the failures.
func (f *faultRun) finish(ctx context.Context) (*SlowFaults, error) {
	o := f.r.opts
	if f.watch != nil {
		// A fallback comes due between two passes of its HPA, and is
		// seen at the next; the limit of a latency phase bounds that.
		due := f.start.Add(o.FallbackAfter)
		seen, err := f.watch.wait(ctx, due.Add(o.latencyTimeout()))
		if err != nil {
			return nil, errors.Join(err, f.stop(context.WithoutCancel(ctx)))
		}
		lateness := fallbackLateness(due, seen, len(f.watch.want))
		f.result.FallbackLateness = &lateness
		f.r.logger.Info("Fallback lateness measured", "seen", lateness.Measured, "missed", lateness.Missed, "p50Seconds", lateness.P50, "maxSeconds", lateness.Max)
	}
	res := f.result
	return &res, f.stop(ctx)
}

// stop ends the failures: the flapping, the watch, and the slow metric
// back to answering fast, as the next controller starts. It does nothing
// on nil or a second time.
func (f *faultRun) stop(ctx context.Context) error {
	if f == nil || f.stopped {
		return nil
	}
	f.stopped = true
	if f.cancel != nil {
		f.cancel()
		<-f.done
	}
	if f.watch != nil {
		f.watch.stop()
	}
	return setSlowFault(ctx, f.r.kube, f.r.opts, "")
}

// setSlowFault has the slow metric play fault, or with none answer its
// series fast.
func setSlowFault(ctx context.Context, kube kubernetes.Interface, o Options, fault string) error {
	key := "external." + metricSlow
	return patchMetricsConfig(ctx, kube, map[string]string{key: withFault(metricsData(o)[key], fault)})
}

// secondLatencyChange raises the latency metrics from the first change's
// value by latencyStep replicas more: the latency phase after the
// failures began, on Deployments the first phase left scaled up (a
// scale-down would wait out the downscale stabilization window).
func secondLatencyChange(kube kubernetes.Interface, o Options) latencyChange {
	replicas := o.latencyReplicas() + latencyStep
	series, _ := metricSeries(o)
	return latencyChange{replicas: replicas, raise: func(ctx context.Context, trial int) error {
		name := latencyMetric(trial)
		return patchMetricsConfig(ctx, kube, map[string]string{"external." + name: seriesYAML(series[name], int(replicas)*steadyValue)})
	}}
}
