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
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
)

// limitedHarness is a controller whose scale reads wait at a gate, sharing
// limit with the other controllers of a test, as a sharded replica's
// per-shard controllers do.
type limitedHarness struct {
	*harness
	gate gatedScales
	key  hpaKey
}

func newLimitedHarness(t *testing.T, limit *WorkerLimit) limitedHarness {
	h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
	h.scales.setScale(3, 3, testSelector)
	h.addPods(3, 50)
	h.drainQueue()
	gate := newGatedScales(h.scales)
	h.c.opts.ScaleClient = gate
	h.c.opts.WorkerLimit = limit
	return limitedHarness{harness: h, gate: gate, key: h.key(testHPAName)}
}

// processNext runs one worker turn of h in a goroutine; the channel closes
// once the worker is free again and says whether it went on.
func (h limitedHarness) processNext(ctx context.Context, workers *sync.WaitGroup) <-chan bool {
	free := make(chan bool, 1)
	h.c.queue.Add(h.key)
	workers.Go(func() {
		free <- h.c.processNextWorkItem(ctx)
	})
	return free
}

// TestAWorkerLimitBoundsPassesAcrossControllers pins Options.WorkerLimit:
// with one slot shared by two controllers, the second controller's pass
// starts only once the first one's worker is free, which a pass moved to
// the slow lane makes it; and a worker waiting for a slot stops with its
// context, passing nothing.
func TestAWorkerLimitBoundsPassesAcrossControllers(t *testing.T) {
	limit := NewWorkerLimit(1)
	first, second := newLimitedHarness(t, limit), newLimitedHarness(t, limit)
	var workers sync.WaitGroup
	defer workers.Wait()

	waiters := first.clock.Waiters()
	firstFree := first.processNext(first.ctx, &workers)
	<-first.gate.entered
	// The first worker holds its pass (its timer is the clock's waiter).
	for first.clock.Waiters() <= waiters {
		runtime.Gosched()
	}

	secondFree := second.processNext(second.ctx, &workers)
	entered := make(chan struct{})
	go func() {
		<-second.gate.entered
		close(entered)
	}()
	select {
	case <-entered:
		t.Fatal("the second controller's pass started while the first held the only slot")
	case <-time.After(50 * time.Millisecond):
	}

	// The first pass overruns and moves to the slow lane: its worker, and
	// with it the slot, is free, and the second pass starts.
	first.clock.Step(cadence.SlowPass(15 * time.Second))
	if went := <-firstFree; !went {
		t.Error("the first worker stopped")
	}
	<-entered
	if !first.c.passes.slow(first.key) {
		t.Error("the second pass started before the first one moved to the slow lane")
	}
	second.gate.release <- struct{}{}
	if went := <-secondFree; !went {
		t.Error("the second worker stopped")
	}
	first.gate.release <- struct{}{}
	first.c.inFlight.Wait()
	second.c.inFlight.Wait()

	// The slot is free again; a third controller's worker takes it and
	// holds it, and a fourth, waiting for it, stops with its context.
	third, fourth := newLimitedHarness(t, limit), newLimitedHarness(t, limit)
	thirdFree := third.processNext(third.ctx, &workers)
	<-third.gate.entered
	ctx, cancel := context.WithCancel(fourth.ctx)
	fourthFree := fourth.processNext(ctx, &workers)
	cancel()
	if went := <-fourthFree; went {
		t.Error("a worker waiting for a slot went on after its context ended")
	}
	if n := fourth.c.queue.Len(); n != 0 {
		t.Errorf("the stopped worker left %d HPAs queued, want its HPA done", n)
	}
	third.gate.release <- struct{}{}
	<-thirdFree
	third.c.inFlight.Wait()
	if len(limit.slots) != 0 {
		t.Errorf("%d slots still taken after every pass ended", len(limit.slots))
	}
}
