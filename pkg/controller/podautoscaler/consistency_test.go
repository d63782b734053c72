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

package podautoscaler

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// TestWrittenVersions pins when a pass must wait for the HPA cache: only
// while the cache is older than the controller's own last status write of
// that HPA.
func TestWrittenVersions(t *testing.T) {
	key := hpaKey{namespace: "default", name: "web"}
	other := hpaKey{namespace: "default", name: "api"}
	cases := []struct {
		name      string
		writes    func(w *writtenVersions)
		read      string
		wantStale bool
		// thenRead, when set, is checked after the first read: a record
		// the cache has caught up with is gone, so an older read passes.
		thenRead  string
		thenStale bool
	}{
		{name: "an HPA never written is never held", writes: func(*writtenVersions) {}, read: "5"},
		{name: "a cache older than the write holds the pass", writes: func(w *writtenVersions) { w.wrote(key, "a", "10") }, read: "9", wantStale: true,
			thenRead: "9", thenStale: true},
		{name: "a cache at the write lets it pass and forgets the write", writes: func(w *writtenVersions) { w.wrote(key, "a", "10") }, read: "10",
			thenRead: "3"},
		{name: "a cache past the write lets it pass", writes: func(w *writtenVersions) { w.wrote(key, "a", "10") }, read: "11"},
		{name: "the newest write counts, in whatever order they are recorded", writes: func(w *writtenVersions) {
			w.wrote(key, "a", "12")
			w.wrote(key, "a", "10")
		}, read: "11", wantStale: true},
		{name: "a write to a new HPA of the same name replaces the old one's", writes: func(w *writtenVersions) {
			w.wrote(key, "a", "12")
			w.wrote(key, "b", "10")
		}, read: "11"},
		{name: "another HPA's write does not hold this one", writes: func(w *writtenVersions) { w.wrote(other, "a", "10") }, read: "9"},
		{name: "a cache that cannot tell its version never holds a pass", writes: func(w *writtenVersions) { w.wrote(key, "a", "10") }, read: ""},
		{name: "a malformed version never holds a pass", writes: func(w *writtenVersions) { w.wrote(key, "a", "10") }, read: "x9"},
		{name: "a forgotten HPA is not held", writes: func(w *writtenVersions) {
			w.wrote(key, "a", "10")
			w.forget(key)
		}, read: "9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWrittenVersions()
			tc.writes(w)
			if err := w.ensureSeen(key, tc.read, schema.GroupResource{}); (err != nil) != tc.wantStale {
				t.Fatalf("ensureSeen(%q) = %v, want stale %v", tc.read, err, tc.wantStale)
			}
			if tc.thenRead != "" {
				if err := w.ensureSeen(key, tc.thenRead, schema.GroupResource{}); (err != nil) != tc.thenStale {
					t.Errorf("then ensureSeen(%q) = %v, want stale %v", tc.thenRead, err, tc.thenStale)
				}
			}
		})
	}
}

// behindOwnWrite is a harness whose HPA has had a pass that wrote its
// status, with the HPA cache held where it was before that write, and
// StaleControllerConsistencyHPA as gateOn says.
func behindOwnWrite(t *testing.T, gateOn bool) *harness {
	t.Helper()
	h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), withGates(features.StaleControllerConsistencyHPA, gateOn))
	h.source.name = v2.SchemeGroupVersion.String()
	h.scales.setScale(3, 3, testSelector)
	h.addPods(3, 100)
	h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(90, 90, 90))
	h.source.version = 100
	h.mustReconcile()
	if h.source.statusUpdates == 0 {
		t.Fatal("the first pass wrote no status")
	}
	h.source.cacheHeldAt = strconv.Itoa(h.source.version - 1)
	return h
}

// TestStaleCacheSkipsThePass follows StaleControllerConsistencyHPA through
// the worker: a pass over a cache that has not seen the controller's own
// status write is skipped, counted and requeued a period later; once the
// cache catches up the HPA is reconciled again. Gate off, nothing waits.
func TestStaleCacheSkipsThePass(t *testing.T) {
	for _, tc := range []struct {
		name     string
		gateOn   bool
		wantSkip bool
	}{
		{name: "gate on: the pass waits for the cache", gateOn: true, wantSkip: true},
		{name: "gate off: the pass goes on, as v1.36", gateOn: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := behindOwnWrite(t, tc.gateOn)
			q := recordQueue(h)
			h.c.queue.Add(h.key(testHPAName))
			if !h.c.processNextWorkItem(h.ctx) {
				t.Fatal("processNextWorkItem = false")
			}
			skipped := len(h.monitor.staleSkips) > 0
			if skipped != tc.wantSkip {
				t.Fatalf("stale skips = %v, want a skip: %v", h.monitor.staleSkips, tc.wantSkip)
			}
			if !tc.wantSkip {
				return
			}
			if got, want := h.monitor.staleSkips, []string{"autoscaling.kube-hpa.io/horizontalpodautoscalers"}; !sameStrings(got, want) {
				t.Errorf("stale skips = %v, want %v", got, want)
			}
			if got := q.recorded(); !sameStrings(got, []string{"Add default/web", "AddAfter default/web 15s"}) {
				t.Errorf("queue calls = %v, want the skipped HPA back a period later", got)
			}
			if n := len(h.monitor.reconciliations); n != 1 {
				t.Errorf("reconciliations = %d, want only the first pass's", n)
			}

			h.source.cacheHeldAt = ""
			h.mustReconcile()
			if n := len(h.monitor.reconciliations); n != 2 {
				t.Errorf("reconciliations = %d after the cache caught up, want 2", n)
			}
		})
	}
}

// TestPanicInThePassBookkeepingRequeues: a panic after the reconcile (here
// in the monitor, as the stale-cache skip is counted) is counted once and
// the HPA comes back with the panic backoff instead of leaving the queue.
func TestPanicInThePassBookkeepingRequeues(t *testing.T) {
	h := behindOwnWrite(t, true)
	h.monitor.panicOnStaleSkip = true
	q := recordQueue(h)
	h.c.queue.Add(h.key(testHPAName))
	if !h.c.processNextWorkItem(h.ctx) {
		t.Fatal("processNextWorkItem = false")
	}
	// The pass's goroutine counts the panic after the pass has let the
	// worker go: wait for the count, not for the worker.
	counted := wait.PollUntilContextTimeout(h.ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return len(h.monitor.recoveredPanics()) > 0, nil
	})
	if got := h.monitor.recoveredPanics(); counted != nil || !sameStrings(got, []string{"HPA pass runner"}) {
		t.Errorf("recovered panics = %v, want the pass runner's once", got)
	}
	calls := q.recorded()
	if len(calls) != 2 || calls[0] != "Add default/web" || !strings.HasPrefix(calls[1], "AddAfter default/web ") {
		t.Errorf("queue calls = %v, want the HPA back after the panic backoff", calls)
	}
}

// TestObservedGeneration pins status.observedGeneration (HPAGeneration): the
// generation the pass read, written with the status it computed, 0
// included; nothing with the gate off.
func TestObservedGeneration(t *testing.T) {
	for _, tc := range []struct {
		name       string
		gateOn     bool
		generation int64
		want       *int64
	}{
		{name: "gate on: the generation read", gateOn: true, generation: 3, want: ptr.To[int64](3)},
		{name: "gate on: an API server that does not count generations gives 0", gateOn: true, generation: 0, want: ptr.To[int64](0)},
		{name: "gate off: not written, as v1.36", gateOn: false, generation: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hpa := newHPA(1, 10, cpuUtilization(50))
			hpa.Generation = tc.generation
			h := newHarness(t, hpa, withGates(features.HPAGeneration, tc.gateOn))
			h.scales.setScale(3, 3, testSelector)
			h.addPods(3, 100)
			h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(50, 50, 50))
			h.mustReconcile()
			if got := h.hpa(testHPAName).Status.ObservedGeneration; !ptr.Equal(got, tc.want) {
				t.Errorf("observedGeneration = %v, want %v", ptr.Deref(got, -1), ptr.Deref(tc.want, -1))
			}
		})
	}
}
