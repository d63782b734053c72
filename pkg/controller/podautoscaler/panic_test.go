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
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"
)

// panickingScales panics on every read of the target named victim.
type panickingScales struct {
	scale.ScalesGetter
	victim string
}

func (p panickingScales) Scales(namespace string) scale.ScaleInterface {
	return panickingScaleInterface{ScaleInterface: p.ScalesGetter.Scales(namespace), victim: p.victim}
}

type panickingScaleInterface struct {
	scale.ScaleInterface
	victim string
}

func (p panickingScaleInterface) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	if name == p.victim {
		var missing map[string]*autoscalingv1.Scale
		missing[name].Spec.Replicas = 1 // a nil dereference, as a bug would make
	}
	return p.ScaleInterface.Get(ctx, gr, name, opts)
}

// TestPanicIsOneHPAsError pins the fifth safety rule: a pass that panics is
// its HPA's error (counted as an internal error, a Warning event on the
// HPA, a requeue that backs off while it keeps panicking), never the
// process's end: the worker goes on to its next item.
func TestPanicIsOneHPAsError(t *testing.T) {
	h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
	h.scales.setScale(12, 12, testSelector)
	h.c.opts.ScaleClient = panickingScales{ScalesGetter: h.scales, victim: testTarget}
	q := recordQueue(h)

	var delays []string
	for range 3 {
		q.calls = nil
		h.c.queue.Add(h.key(testHPAName))
		if !h.c.processNextWorkItem(h.ctx) {
			t.Fatal("processNextWorkItem = false, want true while the queue runs")
		}
		delays = append(delays, q.recorded()[len(q.recorded())-1])
	}
	want := []string{"AddAfter default/web 15s", "AddAfter default/web 30s", "AddAfter default/web 1m0s"}
	if !sameStrings(delays, want) {
		t.Errorf("requeues after each panic = %v, want %v", delays, want)
	}
	if got := h.monitor.reconciliations; !sameStrings(got, []string{"none/internal", "none/internal", "none/internal"}) {
		t.Errorf("reconciliations = %v, want each panic counted as an internal error", got)
	}
	events := h.events()
	if len(events) != 3 || !strings.HasPrefix(events[0], "Warning FailedReconcile reconcile panicked: ") {
		t.Errorf("events = %q, want one Warning FailedReconcile per panic", events)
	}

	// The HPA recovers (the bug's input is gone): its next pass is a normal
	// one and the backoff starts over.
	h.c.opts.ScaleClient = h.scales
	q.calls = nil
	h.clock.Step(2 * time.Minute)
	waitReady(t, h, 1, time.Second)
	if !h.c.processNextWorkItem(h.ctx) {
		t.Fatal("processNextWorkItem = false")
	}
	if got := q.recorded(); !sameStrings(got, []string{"AddRateLimited default/web"}) {
		t.Errorf("queue calls after a normal pass = %v, want the period's requeue", got)
	}
	h.c.passes.mu.Lock()
	n := h.c.passes.passes[h.key(testHPAName)].panics
	h.c.passes.mu.Unlock()
	if n != 0 {
		t.Errorf("the pass log counts %d panics in a row after a normal pass, want 0", n)
	}
}
