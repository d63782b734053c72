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
	synced  atomic.Bool
}

func newHealthState() *healthState { return &healthState{} }

func (h *healthState) ready() bool {
	return !h.leading.Load() || h.synced.Load()
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
	mux.Handle("/metrics", metrics.HandlerFor(registry, metrics.HandlerOpts{}))
	return mux
}
