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

package app

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	componentbaseconfig "k8s.io/component-base/config"
	"k8s.io/component-base/metrics"
)

// leaseHealthTimeout is how long past its renew deadline a leader may go
// without renewing its lease before /healthz fails, as kube-controller-
// manager's leader election health check allows.
const leaseHealthTimeout = 20 * time.Second

// stallPeriods is how many sync periods the workers may go without
// finishing a pass, while HPAs are due, before /healthz fails.
const stallPeriods = 3

// healthState is what /healthz (and /livez) and /readyz report.
//
// Ready: a standby replica is ready (it serves the webhook and waits for
// the lease); the leader is ready once its caches have synced, a sharded
// replica once those of every shard it works have; a replica that serves
// the webhook is ready only once the webhook serves.
//
// Healthy (else the kubelet restarts the pod): a leader keeps renewing its
// lease, and the workers of each of its controllers (one per shard when
// sharded) keep finishing passes while HPAs are due.
type healthState struct {
	mu sync.Mutex
	// runs are the controllers running: the leader's one, or a sharded
	// replica's one per shard worked. The replica leads while there is
	// one.
	runs map[*controllerHealth]struct{}
	// webhook says whether the webhook serves, when this replica serves
	// one.
	webhook atomic.Pointer[func() error]
	// lease fails while this replica leads without renewing its lease.
	lease *leaderelection.HealthzAdaptor
}

// controllerHealth is one controller's part of the probes.
type controllerHealth struct {
	// synced is the controller's HasSynced, once there is one.
	synced atomic.Pointer[func() bool]
	// stalled is the controller's Stalled check, once there is one.
	stalled atomic.Pointer[func() error]
}

func newHealthState() *healthState {
	return &healthState{
		runs:  map[*controllerHealth]struct{}{},
		lease: leaderelection.NewLeaderHealthzAdaptor(leaseHealthTimeout),
	}
}

// startRun adds a controller to the probes, not ready until it says it
// synced, until the returned func removes it.
func (h *healthState) startRun() (*controllerHealth, func()) {
	run := &controllerHealth{}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.runs[run] = struct{}{}
	return run, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.runs, run)
	}
}

// running returns the controllers running; none on a standby.
func (h *healthState) running() []*controllerHealth {
	h.mu.Lock()
	defer h.mu.Unlock()
	runs := make([]*controllerHealth, 0, len(h.runs))
	for run := range h.runs {
		runs = append(runs, run)
	}
	return runs
}

// leading reports whether this replica runs any controller: it leads, or
// sharded, works a shard.
func (h *healthState) leading() bool { return len(h.running()) > 0 }

// setSynced makes readiness follow hasSynced, asked at each probe.
func (c *controllerHealth) setSynced(hasSynced func() bool) { c.synced.Store(&hasSynced) }

// setStalled makes liveness follow stalled, asked at each probe.
func (c *controllerHealth) setStalled(stalled func() error) { c.stalled.Store(&stalled) }

// setWebhook makes readiness follow serving, asked at each probe.
func (h *healthState) setWebhook(serving func() error) { h.webhook.Store(&serving) }

func (h *healthState) ready() error {
	if webhook := h.webhook.Load(); webhook != nil {
		if err := (*webhook)(); err != nil {
			return fmt.Errorf("webhook: %w", err)
		}
	}
	for _, run := range h.running() {
		if synced := run.synced.Load(); synced == nil || !(*synced)() {
			return errors.New("caches not synced")
		}
	}
	return nil
}

func (h *healthState) healthy(r *http.Request) error {
	var errs []error
	if err := h.lease.Check(r); err != nil {
		errs = append(errs, fmt.Errorf("leader election: %w", err))
	}
	for _, run := range h.running() {
		if stalled := run.stalled.Load(); stalled != nil {
			if err := (*stalled)(); err != nil {
				errs = append(errs, fmt.Errorf("workers: %w", err))
				// One stalled controller is enough to restart the replica.
				break
			}
		}
	}
	return errors.Join(errs...)
}

// plainMux is what the plain --port serves: it has no authentication, so it
// serves no profiles, whatever --profiling says; those are served behind the
// secure port's authorization alone.
func plainMux(h *healthState, registry metrics.KubeRegistry) *http.ServeMux {
	return healthMux(h, registry, componentbaseconfig.DebuggingConfiguration{})
}

func healthMux(h *healthState, registry metrics.KubeRegistry, debugging componentbaseconfig.DebuggingConfiguration) *http.ServeMux {
	mux := http.NewServeMux()
	// /livez is /healthz under the name kube-apiserver and newer probes
	// use; both are liveness.
	live := func(w http.ResponseWriter, r *http.Request) {
		if err := h.healthy(r); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}
	mux.HandleFunc("/healthz", live)
	mux.HandleFunc("/livez", live)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := h.ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	mux.Handle("/metrics", metrics.HandlerFor(metricsGatherer(registry), metrics.HandlerOpts{}))
	if debugging.EnableProfiling {
		installProfiling(mux)
	}
	return mux
}
