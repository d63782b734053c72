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
	"net/http"
	"net/http/pprof"
	"runtime"

	componentbaseconfig "k8s.io/component-base/config"
)

// installProfiling serves Go's profiles under /debug/pprof/, as
// kube-controller-manager does with --profiling: on the secure port behind
// its authorization (a non-resource URL), never on the plain --port
// (plainMux).
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
