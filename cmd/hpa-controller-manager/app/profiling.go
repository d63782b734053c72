package app

import (
	"net/http"
	"net/http/pprof"
	"runtime"

	componentbaseconfig "k8s.io/component-base/config"
)

// installProfiling serves Go's profiles under /debug/pprof/, as
// kube-controller-manager does with --profiling: on the secure port behind
// its authorization (a non-resource URL), and on the plain --port of local
// runs.
func installProfiling(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

// setContentionProfiling turns block profiling on with
// --contention-profiling, which matters only when the profiles are served.
func setContentionProfiling(d componentbaseconfig.DebuggingConfiguration) {
	if d.EnableProfiling && d.EnableContentionProfiling {
		runtime.SetBlockProfileRate(1)
	}
}
