package app

import (
	"net/http"
	"sync/atomic"

	"k8s.io/component-base/metrics"
)

// healthState is what /readyz reports: ready once this replica can do its
// part. A standby replica is ready (it serves the webhook and waits for the
// lease); the leader is ready once its caches have synced.
type healthState struct {
	leading atomic.Bool
	// synced is the leader's controller's HasSynced, once there is one.
	synced atomic.Pointer[func() bool]
}

func newHealthState() *healthState { return &healthState{} }

// setSynced makes readiness follow hasSynced, asked at each probe.
func (h *healthState) setSynced(hasSynced func() bool) { h.synced.Store(&hasSynced) }

func (h *healthState) ready() bool {
	if !h.leading.Load() {
		return true
	}
	synced := h.synced.Load()
	return synced != nil && (*synced)()
}

func healthMux(h *healthState, registry metrics.KubeRegistry) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !h.ready() {
			http.Error(w, "caches not synced", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	mux.Handle("/metrics", metrics.HandlerFor(metricsGatherer(registry), metrics.HandlerOpts{}))
	return mux
}
