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

package cadence

import (
	"slices"
	"sync"
	"time"
)

// The slow lane keeps a metrics provider that hangs (until the fetch
// budget ends the pass) from holding the workers every other HPA needs.
// Three rules (docs/slow-providers.md):
//
//  1. A pass may hold its worker for SlowPass of its period, and only for
//     HotShare once one of its flows is hot (rule 3); past that it moves
//     to the lane, off the workers, and its HPA is slow from then on: its
//     next passes start in the lane, until FastPassesToLeave fast passes in
//     a row. The short share is what keeps a provider that starts hanging
//     for many HPAs at once from holding the workers a quarter period per
//     HPA: the first heats the flow, each other costs a fraction of a
//     second.
//  2. The lane has no count of its own: an HPA has at most one pass in
//     flight and the fetch budget ends it, so a slow HPA is still passed
//     once per period, and its fallback comes when due.
//  3. A flow (a namespace, or a metrics source) with a pass in the lane,
//     or one that ended less than a period ago, is hot: its HPAs hold at
//     most half of the workers while others wait for them. As in API
//     Priority and Fairness, a hot flow borrows the workers nobody else
//     asks for, but always leaves one free.

// FastPassesToLeave is how many fast passes in a row take an HPA out of
// the slow lane: a provider that flaps between fast errors and hangs keeps
// its HPAs in it.
const FastPassesToLeave = 3

// HotFlowPass is how long a pass of a hot flow may hold its worker. A
// healthy pass takes tens of milliseconds even on a busy API server; one
// that takes longer while its flow has passes in the lane most likely waits
// on the same provider, and moving one that does not costs only where it
// runs.
const HotFlowPass = 250 * time.Millisecond

// SlowPass is how long a pass of an HPA of period may hold its worker.
func SlowPass(period time.Duration) time.Duration { return period / 4 }

// HotShare is how long a pass of an HPA of period may hold its worker while
// one of its flows is hot.
func HotShare(period time.Duration) time.Duration { return min(HotFlowPass, SlowPass(period)) }

// Flows are what a pass is counted against: its namespace and each metrics
// source it fetches from, named by the caller.
type Flows []string

// Lane counts, per flow, the passes on workers and the passes in the lane,
// and keeps, in order, the HPAs (keys K) it turned away until a worker
// frees. It is safe for concurrent use.
type Lane[K comparable] struct {
	mu sync.Mutex
	// workers is the controller's; busy how many of them hold a pass.
	workers, busy, share int
	onWork, inLane       map[string]int
	// warm is when each flow cools, one period after its last pass in
	// the lane ended: a slow HPA's next pass comes a period later, and a
	// flow that cooled in between would give the next HPA that starts
	// hanging a quarter period of a worker again.
	warm map[string]time.Time
	// waiting are the HPAs turned away, each handed back as a worker
	// frees. A timer instead would let one worker turn every queued HPA
	// of a hot flow away in a moment and leave the workers idle until it
	// fired.
	waiting   []K
	isWaiting map[K]bool
}

// NewLane returns the lane of a controller with workers workers.
func NewLane[K comparable](workers int) *Lane[K] {
	l := &Lane[K]{onWork: map[string]int{}, inLane: map[string]int{}, warm: map[string]time.Time{}, isWaiting: map[K]bool{}}
	l.Resize(workers)
	return l
}

// Resize sets the workers, and a hot flow's share to half of them, at
// least one.
func (l *Lane[K]) Resize(workers int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.workers, l.share = workers, max(1, workers/2)
}

// Freed is the HPA a freed worker is for: the one turned away longest ago,
// when OK. The caller queues it (Rules.Woken).
type Freed[K comparable] struct {
	Key K
	OK  bool
}

// Hold is one pass's place: on a worker, then perhaps in the lane, until
// it is released.
type Hold[K comparable] struct {
	lane   *Lane[K]
	flows  Flows
	period time.Duration
	// inLane is where the pass is now; startedInLane and moved say how
	// it got there, which is what makes it slow (Speed).
	inLane, startedInLane, moved, done bool
}

// Admit reports whether a pass of key, an HPA with flows f and period, may
// start at now, and its hold. A pass of a slow HPA starts in the lane and
// is always let in. Any other takes a worker, unless one of its flows is
// hot and holds its share of the workers already and no other worker would
// be left free; then key waits for the next worker that frees.
func (l *Lane[K]) Admit(key K, f Flows, slow bool, period time.Duration, now time.Time) (*Hold[K], bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := &Hold[K]{lane: l, flows: f, period: period, inLane: slow, startedInLane: slow}
	if slow {
		l.add(l.inLane, f, 1)
		l.stopWaiting(key)
		return h, true
	}
	if othersFree := l.workers - l.busy - 1; othersFree < 1 {
		for _, flow := range f {
			if l.hotLocked(flow, now) && l.onWork[flow] >= l.share {
				if !l.isWaiting[key] {
					l.isWaiting[key] = true
					l.waiting = append(l.waiting, key)
				}
				return nil, false
			}
		}
	}
	l.add(l.onWork, f, 1)
	l.busy++
	l.stopWaiting(key)
	return h, true
}

// stopWaiting forgets key's wait: it got a pass another way (an event, its
// slot) before a worker freed, and must not get a second.
func (l *Lane[K]) stopWaiting(key K) {
	if !l.isWaiting[key] {
		return
	}
	delete(l.isWaiting, key)
	l.waiting = slices.DeleteFunc(l.waiting, func(k K) bool { return k == key })
}

// freedLocked takes the HPA that waited longest, as a worker frees.
func (l *Lane[K]) freedLocked() Freed[K] {
	if len(l.waiting) == 0 {
		return Freed[K]{}
	}
	key := l.waiting[0]
	l.waiting = l.waiting[1:]
	delete(l.isWaiting, key)
	return Freed[K]{Key: key, OK: true}
}

// hotLocked reports whether flow has a pass in the lane, or had one less
// than a period ago.
func (l *Lane[K]) hotLocked(flow string, now time.Time) bool {
	if l.inLane[flow] > 0 {
		return true
	}
	until, ok := l.warm[flow]
	if ok && !now.Before(until) {
		delete(l.warm, flow)
		return false
	}
	return ok
}

func (l *Lane[K]) add(counts map[string]int, f Flows, n int) {
	for _, flow := range f {
		counts[flow] += n
		if counts[flow] == 0 {
			delete(counts, flow)
		}
	}
}

// Keep says how much longer a worker holds the pass of h, which has held
// it for held: more, when keep; otherwise the pass has overrun its share
// and goes to the lane (ToLane). Its share is HotShare while a flow of it
// is hot, checked every HotShare as a flow can heat while the pass runs,
// and SlowPass otherwise.
func (h *Hold[K]) Keep(held time.Duration, now time.Time) (more time.Duration, keep bool) {
	hot, slow := HotShare(h.period), SlowPass(h.period)
	switch {
	case held < hot:
		return hot - held, true
	case held < slow && !h.hot(now):
		return min(hot, slow-held), true
	}
	return 0, false
}

// ToLane moves the pass off its worker into the lane and reports whether
// it did (a pass in the lane already, or over, stays where it is), and the
// HPA its worker is now for.
func (h *Hold[K]) ToLane() (bool, Freed[K]) {
	l := h.lane
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.inLane || h.done {
		return false, Freed[K]{}
	}
	h.inLane, h.moved = true, true
	l.busy--
	l.add(l.onWork, h.flows, -1)
	l.add(l.inLane, h.flows, 1)
	return true, l.freedLocked()
}

// Release ends the pass's hold at now, and returns the HPA its worker is
// now for, if it held one; a second call does nothing.
func (h *Hold[K]) Release(now time.Time) Freed[K] {
	l := h.lane
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.done {
		return Freed[K]{}
	}
	h.done = true
	if !h.inLane {
		l.busy--
		l.add(l.onWork, h.flows, -1)
		return l.freedLocked()
	}
	l.add(l.inLane, h.flows, -1)
	until := now.Add(h.period)
	for _, flow := range h.flows {
		if until.After(l.warm[flow]) {
			l.warm[flow] = until
		}
	}
	return Freed[K]{}
}

// hot reports whether one of the pass's flows is hot at now.
func (h *Hold[K]) hot(now time.Time) bool {
	l := h.lane
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, flow := range h.flows {
		if l.hotLocked(flow, now) {
			return true
		}
	}
	return false
}

// Speed is what a pass says of its HPA's place in the lane.
type Speed int

const (
	// NotPassed: no pass was made (the HPA could not be read), which says
	// nothing of its speed.
	NotPassed Speed = iota
	PassedFast
	PassedSlow
)

// Speed is the speed of the pass of h that took took: slow when it was
// moved off its worker, or when it started in the lane and took longer
// than it could have held a worker there (its flow was hot: it was in it).
func (h *Hold[K]) Speed(took time.Duration) Speed {
	if h.moved || (h.startedInLane && took > HotShare(h.period)) {
		return PassedSlow
	}
	return PassedFast
}

// Standing is an HPA's place in the lane across its passes.
type Standing struct {
	// Slow: its passes start in the lane.
	Slow bool
	// Fast is how many fast passes it has made in a row since its last
	// slow one.
	Fast int
}

// After is the standing after a pass of speed s: slow from its first slow
// pass, until FastPassesToLeave fast passes in a row; a turn with no pass
// neither counts nor resets.
func (st Standing) After(s Speed) Standing {
	switch s {
	case PassedSlow:
		return Standing{Slow: true}
	case PassedFast:
		st.Fast++
		if st.Fast >= FastPassesToLeave {
			st.Slow = false
		}
	}
	return st
}
