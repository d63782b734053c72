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
	"sync/atomic"
	"testing"
	"time"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// panicOn returns a metrics hook that panics, as a bug in a client would,
// on the first times calls for the external metric named victim, and
// lets every other call through.
func panicOn(victim string, times int32) metricstest.Hook {
	var left atomic.Int32
	left.Store(times)
	return func(_ context.Context, req metricstest.Request) error {
		if req.Kind == metricstest.External && req.Name == victim && left.Add(-1) >= 0 {
			var missing map[string]int
			missing[victim]++ // a nil map write, as a bug would make
		}
		return nil
	}
}

// TestPanicInAGoroutineOfAPassIsThatHPAsError pins the safety rule for the
// goroutines a pass starts (a metric's evaluation, beside the others) and
// for the shared fetch a pass owns: the panic is recovered and counted once
// under the work that panicked, the HPA's pass fails and comes back with the
// panic backoff, and another HPA of the same controller is reconciled as if
// nothing happened, with a fetch of its own where it asks the same metric.
func TestPanicInAGoroutineOfAPassIsThatHPAsError(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts harnessOptions
		// victimMetrics are the External metrics of the HPA whose pass
		// panics.
		victimMetrics []string
		// otherMetric is the metric of the other HPA.
		otherMetric string
		wantPanics  []string
		// wantFetches is how often the panicking metric was fetched
		// over both passes.
		wantFetches int
	}{
		{
			name:          "a metric evaluated beside another panics",
			victimMetrics: []string{"boom", "queue_depth"},
			otherMetric:   "queue_depth",
			wantPanics:    []string{"metric evaluation"},
			wantFetches:   1,
		},
		{
			name:          "an HPA's only metric panics on the worker's stack",
			victimMetrics: []string{"boom"},
			otherMetric:   "queue_depth",
			wantPanics:    []string{"HPA pass"},
			wantFetches:   1,
		},
		{
			name:          "a shared fetch panics: the next asker of the metric fetches it again",
			opts:          harnessOptions{sharingWindow: time.Minute},
			victimMetrics: []string{"boom", "queue_depth"},
			otherMetric:   "boom",
			wantPanics:    []string{"shared external metric fetch"},
			wantFetches:   2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victim := newHPA(1, 10)
			for _, m := range tc.victimMetrics {
				victim.Spec.Metrics = append(victim.Spec.Metrics, externalAverage(m, "10"))
			}
			h := newHarness(t, victim, tc.opts)
			h.scales.setScale(1, 1, testSelector)
			other := newHPA(1, 10, externalAverage(tc.otherMetric, "10"))
			other.Name = "other"
			other.Spec.ScaleTargetRef.Name = "other"
			addScale(h, testNamespace, "other", 1, "app=other")
			h.addHPA(other)
			h.drainQueue()
			for _, m := range []string{"boom", "queue_depth"} {
				h.metrics.SetExternal(m, metricstest.ExternalAnswer{Values: []int64{30000}, Timestamp: testStart})
			}
			h.metrics.SetHook(panicOn("boom", 1))
			q := recordQueue(h)

			for _, name := range []string{testHPAName, "other"} {
				h.c.queue.Add(h.key(name))
				if !h.c.processNextWorkItem(h.ctx) {
					t.Fatalf("processNextWorkItem = false for %s, want true while the queue runs", name)
				}
			}

			if got := h.monitor.recoveredPanics(); !sameStrings(got, tc.wantPanics) {
				t.Errorf("recovered panics = %v, want %v (each counted once, where it happened)", got, tc.wantPanics)
			}
			want := []string{"Add default/web", "AddAfter default/web 15s", "Add default/other", "AddRateLimited default/other"}
			if got := q.recorded(); !sameStrings(got, want) {
				t.Errorf("queue calls = %v, want the panicking HPA backed off and the other requeued for its period", got)
			}
			if got := h.monitor.reconciliations; !sameStrings(got, []string{"none/internal", "scale_up/none"}) {
				t.Errorf("reconciliations = %v, want the panic as an internal error and the other HPA's scale-up", got)
			}
			if got := h.hpa("other").Status.DesiredReplicas; got != 3 {
				t.Errorf("other HPA's desired replicas = %d, want 3 (30 against a target of 10)", got)
			}
			if got := h.metrics.Calls(metricstest.External, "boom"); got != tc.wantFetches {
				t.Errorf("fetches of the panicking metric = %d, want %d", got, tc.wantFetches)
			}
		})
	}
}
