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
	"testing"
	"time"
)

// TestSlowLane pins how many workers slow HPAs may hold: half of them, at
// least one, while healthy HPAs are never held back, and an HPA leaves the
// lane with its first fast pass.
func TestSlowLane(t *testing.T) {
	const period = 15 * time.Second
	key := func(name string) hpaKey { return hpaKey{namespace: "tenant", name: name} }
	slowTook, fastTook := 8*time.Second, time.Second
	for _, tc := range []struct {
		name    string
		workers int
		// passes are how long each HPA's last pass took.
		passes map[string]time.Duration
		// running are the HPAs whose passes are under way, in order.
		running []string
		// admits is whether each of running was let in.
		admits []bool
	}{
		{name: "healthy HPAs are always let in", workers: 2,
			passes:  map[string]time.Duration{"a": fastTook, "b": fastTook, "c": fastTook},
			running: []string{"a", "b", "c"}, admits: []bool{true, true, true}},
		{name: "HPAs never passed before are let in", workers: 2,
			running: []string{"a", "b", "c"}, admits: []bool{true, true, true}},
		{name: "slow HPAs take half the workers, healthy ones still get in", workers: 4,
			passes:  map[string]time.Duration{"s1": slowTook, "s2": slowTook, "s3": slowTook, "h": fastTook},
			running: []string{"s1", "s2", "s3", "h"}, admits: []bool{true, true, false, true}},
		{name: "one worker still lets one slow HPA in", workers: 1,
			passes:  map[string]time.Duration{"s1": slowTook, "s2": slowTook},
			running: []string{"s1", "s2"}, admits: []bool{true, false}},
		{name: "a pass of a quarter period is not slow", workers: 2,
			passes:  map[string]time.Duration{"a": period / 4, "b": period / 4},
			running: []string{"a", "b"}, admits: []bool{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLaneUnderTest(tc.workers)
			for name, took := range tc.passes {
				l.observe(key(name), took, period)
			}
			for i, name := range tc.running {
				if got, _ := l.admit(key(name)); got != tc.admits[i] {
					t.Errorf("admit %s = %v, want %v", name, got, tc.admits[i])
				}
			}
		})
	}

	t.Run("a released slot and a recovered HPA let the next one in", func(t *testing.T) {
		l := newLaneUnderTest(2)
		l.observe(key("s1"), slowTook, period)
		l.observe(key("s2"), slowTook, period)
		_, release := l.admit(key("s1"))
		if ok, _ := l.admit(key("s2")); ok {
			t.Fatal("s2 let in beside s1 on a lane of one")
		}
		release()
		if ok, _ := l.admit(key("s2")); !ok {
			t.Fatal("s2 kept out after s1 left the lane")
		}
		l.observe(key("s1"), fastTook, period)
		if ok, _ := l.admit(key("s1")); !ok {
			t.Fatal("s1 kept out after a fast pass")
		}
	})
}

// TestSlowLaneInTheLoop: a slow HPA that finds the lane full is put back
// for a moment without a pass, and takes no worker.
func TestSlowLaneInTheLoop(t *testing.T) {
	h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
	h.scales.setScale(3, 3, testSelector)
	h.drainQueue()
	l := laneUnderTest{log: h.c.passes, lane: h.c.lane}
	l.observe(h.key(testHPAName), 10*time.Second, 15*time.Second)
	// Another slow HPA holds the lane of one.
	other := hpaKey{namespace: "tenant", name: "hanging"}
	l.observe(other, 10*time.Second, 15*time.Second)
	if ok, _ := l.admit(other); !ok {
		t.Fatal("the first slow HPA was kept out")
	}
	q := recordQueue(h)
	h.c.queue.Add(h.key(testHPAName))
	q.calls = nil
	if !h.c.processNextWorkItem(h.ctx) {
		t.Fatal("processNextWorkItem = false")
	}
	if got := q.recorded(); !sameStrings(got, []string{addAfterWeb(slowLaneRetry)}) {
		t.Errorf("queue calls = %v, want a retry after %v", got, slowLaneRetry)
	}
	if h.source.statusUpdates != 0 {
		t.Errorf("status writes = %d, want none: the pass must not run", h.source.statusUpdates)
	}
}

// laneUnderTest is the slow lane with the pass log that tells it which
// HPAs are slow, as the controller pairs them.
type laneUnderTest struct {
	log  *passLog
	lane *slowLane
}

func newLaneUnderTest(workers int) laneUnderTest {
	return laneUnderTest{log: newPassLog(), lane: newSlowLane(workers)}
}

// observe records a pass of key that took took.
func (l laneUnderTest) observe(key hpaKey, took, period time.Duration) {
	l.log.ended(key, testStart, testStart.Add(took), period)
}

func (l laneUnderTest) admit(key hpaKey) (bool, func()) { return l.lane.admit(l.log.slow(key)) }
