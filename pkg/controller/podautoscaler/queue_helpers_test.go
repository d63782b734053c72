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
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// The controller's tests (controller_test.go) drive the queue, the
// informer handlers and Run with these helpers. Time in the queue is the
// fake clock's: a test steps it and waits (in real time, briefly) for the
// queue's goroutine to move due items to the ready list.

// recordingQueue wraps the controller's queue and records the calls that
// schedule or forget a key, so that a test can tell which path ran.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[hpaKey]
	mu    sync.Mutex
	calls []string
}

func (q *recordingQueue) record(format string, args ...any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls = append(q.calls, fmt.Sprintf(format, args...))
}

func (q *recordingQueue) Add(key hpaKey) {
	q.record("Add %s", key)
	q.TypedRateLimitingInterface.Add(key)
}

func (q *recordingQueue) AddRateLimited(key hpaKey) {
	q.record("AddRateLimited %s", key)
	q.TypedRateLimitingInterface.AddRateLimited(key)
}

func (q *recordingQueue) AddAfter(key hpaKey, d time.Duration) {
	q.record("AddAfter %s %v", key, d)
	q.TypedRateLimitingInterface.AddAfter(key, d)
}

func (q *recordingQueue) Forget(key hpaKey) {
	q.record("Forget %s", key)
	q.TypedRateLimitingInterface.Forget(key)
}

func (q *recordingQueue) recorded() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.calls...)
}

// recordQueue installs a recordingQueue in h's controller.
func recordQueue(h *harness) *recordingQueue {
	q := &recordingQueue{TypedRateLimitingInterface: h.c.queue}
	h.c.queue = q
	return q
}

// waitReady steps the fake clock by step until the queue holds want ready
// items, giving the queue's goroutine time to react after each step, and
// fails after a few seconds of real time.
func waitReady(t *testing.T, h *harness, want int, step time.Duration) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		react := time.Now().Add(100 * time.Millisecond)
		for h.c.queue.Len() < want && time.Now().Before(react) {
			time.Sleep(time.Millisecond)
		}
		if h.c.queue.Len() >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue length = %d after the clock moved %v, want %d", h.c.queue.Len(), h.clock.Since(testStart), want)
		}
		h.clock.Step(step)
	}
}

// checkReadyAfter checks that the fake clock moved about d (from testStart)
// before a key became ready: never less, and at most one step more, since
// the queue may set its timer a step late when the clock moves while it
// computes the timer.
func checkReadyAfter(t *testing.T, h *harness, d, step time.Duration) {
	t.Helper()
	if moved := h.clock.Since(testStart); moved < d || moved > d+step {
		t.Errorf("key became ready %v after the start, want %v", moved, d)
	}
}

// settle gives the queue's goroutine time to act on what is due.
func settle() { time.Sleep(20 * time.Millisecond) }
