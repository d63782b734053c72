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
	componentbaseconfig "k8s.io/component-base/config"
	"k8s.io/component-base/metrics"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadiness(t *testing.T) {
	cases := []struct {
		name    string
		leading bool
		synced  func() bool  // nil: no controller yet
		webhook func() error // nil: no webhook served
		want    string       // "" for ready
	}{
		{name: "a standby replica is ready", leading: false},
		{name: "a leader without a controller yet is not ready", leading: true, want: "caches not synced"},
		{name: "a leader whose controller has not synced is not ready", leading: true, synced: func() bool { return false }, want: "caches not synced"},
		{name: "a leader whose controller has synced is ready", leading: true, synced: func() bool { return true }},
		{name: "a standby whose webhook does not serve is not ready", webhook: func() error { return errors.New("no certificate") }, want: "webhook: no certificate"},
		{name: "a synced leader whose webhook does not serve is not ready", leading: true, synced: func() bool { return true },
			webhook: func() error { return errors.New("not listening") }, want: "webhook: not listening"},
		{name: "a standby whose webhook serves is ready", webhook: func() error { return nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHealthState()
			if tc.leading {
				run, _ := h.startRun()
				if tc.synced != nil {
					run.setSynced(tc.synced)
				}
			}
			if tc.webhook != nil {
				h.setWebhook(tc.webhook)
			}
			checkProbe(t, h, "/readyz", tc.want)
		})
	}
}

// TestLiveness pins what /healthz fails on: a leader whose workers are
// stuck; a standby or a leader whose workers move is healthy. (The lease
// watchdog's own check is client-go's; it passes while nothing leads.)
func TestLiveness(t *testing.T) {
	cases := []struct {
		name    string
		leading bool
		stalled func() error // nil: no controller yet
		want    string
	}{
		{name: "a standby replica is healthy"},
		{name: "a leader without a controller yet is healthy", leading: true},
		{name: "a leader whose workers move is healthy", leading: true, stalled: func() error { return nil }},
		{name: "a leader whose workers are stuck is not healthy", leading: true,
			stalled: func() error { return errors.New("no HPA pass finished for 1m0s") }, want: "workers: no HPA pass finished for 1m0s"},
		{name: "a replica that stopped leading is healthy whatever its old controller says",
			stalled: func() error { return errors.New("stuck") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHealthState()
			run, end := h.startRun()
			if tc.stalled != nil {
				run.setStalled(tc.stalled)
			}
			if !tc.leading {
				end()
			}
			checkProbe(t, h, "/healthz", tc.want)
		})
	}
}

// TestProbesAggregateTheShardsControllers pins the probes of a sharded
// replica, which runs one controller per shard: ready once every one has
// synced, unhealthy as soon as one is stalled, and a controller that
// stopped (its shard given away) counts no more.
func TestProbesAggregateTheShardsControllers(t *testing.T) {
	h := newHealthState()
	first, _ := h.startRun()
	second, endSecond := h.startRun()
	first.setSynced(func() bool { return true })
	first.setStalled(func() error { return nil })
	checkProbe(t, h, "/readyz", "caches not synced")
	second.setSynced(func() bool { return false })
	checkProbe(t, h, "/readyz", "caches not synced")
	second.setSynced(func() bool { return true })
	checkProbe(t, h, "/readyz", "")
	second.setStalled(func() error { return errors.New("no HPA pass finished for 1m0s") })
	checkProbe(t, h, "/healthz", "workers: no HPA pass finished for 1m0s")
	endSecond()
	checkProbe(t, h, "/healthz", "")
	if !h.leading() {
		t.Error("not leading while a shard's controller runs")
	}
	third, _ := h.startRun()
	checkProbe(t, h, "/readyz", "caches not synced")
	third.setSynced(func() bool { return true })
	checkProbe(t, h, "/readyz", "")
}

// checkProbe asks h's mux for path and checks the answer: 200 "ok" when
// want is empty, else an error status whose body says want.
func checkProbe(t *testing.T, h *healthState, path, want string) {
	t.Helper()
	rec := httptest.NewRecorder()
	healthMux(h, nil, componentbaseconfig.DebuggingConfiguration{}).ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	body := strings.TrimSpace(rec.Body.String())
	switch {
	case want == "" && (rec.Code != 200 || body != "ok"):
		t.Errorf("%s = %d %q, want 200 ok", path, rec.Code, body)
	case want != "" && (rec.Code < 500 || !strings.Contains(body, want)):
		t.Errorf("%s = %d %q, want a failure saying %q", path, rec.Code, body, want)
	}
}

// TestPlainPortServesNoProfiles pins that the plain --port, which has no
// authentication, serves no profile even with --profiling on, and still
// serves /metrics.
func TestPlainPortServesNoProfiles(t *testing.T) {
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/debug/pprof/heap?debug=1", http.StatusNotFound},
		{"/debug/pprof/profile?seconds=1", http.StatusNotFound},
		{"/metrics", http.StatusOK},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			plainMux(newHealthState(), metrics.NewKubeRegistry()).ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			if rec.Code != tc.want {
				t.Errorf("GET %s on --port = %d, want %d", tc.path, rec.Code, tc.want)
			}
		})
	}
}

// TestProfilingFollowsTheFlag pins --profiling: kube-controller-manager's
// default serves Go's profiles, and --profiling=false serves none.
func TestProfilingFollowsTheFlag(t *testing.T) {
	for _, tc := range []struct {
		name      string
		profiling bool
		want      int
	}{
		{"profiling on serves the heap profile", true, http.StatusOK},
		{"profiling off serves no profile", false, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			mux := healthMux(newHealthState(), nil, componentbaseconfig.DebuggingConfiguration{EnableProfiling: tc.profiling})
			mux.ServeHTTP(rec, httptest.NewRequest("GET", "/debug/pprof/heap?debug=1", nil))
			if rec.Code != tc.want {
				t.Errorf("GET /debug/pprof/heap = %d, want %d", rec.Code, tc.want)
			}
			if tc.want == http.StatusOK && !strings.Contains(rec.Body.String(), "heap profile") {
				t.Errorf("GET /debug/pprof/heap answered %.80q, want a heap profile", rec.Body.String())
			}
		})
	}
}
