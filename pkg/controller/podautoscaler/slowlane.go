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
	"slices"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/clock"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// The slow lane keeps a metrics provider that hangs (until the fetch
// budget ends the pass) from holding the workers that every other HPA
// needs. Three rules, no more (docs/slow-providers.md):
//
//  1. A pass may hold its worker for a quarter of its period (slowPass),
//     and for hotFlowPass only once one of its flows is hot (rule 3). One
//     that runs longer is moved to the slow lane there and then: its HPA
//     counts as slow from that moment, the worker takes the next HPA, and
//     the pass goes on off the workers until the fetch budget ends it.
//     The short share is what keeps a provider that starts hanging for
//     many HPAs at once from holding the workers a quarter period per
//     HPA: the first of them heats the flow, each of the others costs a
//     fraction of a second of a worker. The next passes of a slow HPA
//     start in the lane at once. An HPA leaves the lane only after
//     fastPassesToLeave fast passes in a row, so a provider that flaps
//     between fast errors and hangs stays in it.
//  2. The lane has no count of its own: each HPA has at most one pass in
//     flight (the queue never hands out a key being processed) and the
//     fetch budget ends it, so a slow HPA is passed on its own slot every
//     period, and its fallback comes when due, whatever the number of
//     slow HPAs.
//  3. A flow (a namespace, or a metrics source: the API group a metric is
//     routed to) with a pass in the lane, or one that ended less than a
//     period ago, is "hot": while it is, its HPAs hold at most half of the
//     workers when others are waiting for them, so a provider that starts
//     hanging, or a tenant whose HPAs all hang, costs the others at most
//     half of the workers. A hot flow borrows the workers that would
//     otherwise stay idle, but always leaves one free; flows with no slow
//     pass are never bounded. As in API Priority and Fairness, a share only
//     limits a flow when it would take from others.

// fastPassesToLeave is how many fast passes in a row take an HPA out of
// the slow lane.
const fastPassesToLeave = 3

// slowPass is how long a pass of an HPA of period may hold its worker.
func slowPass(period time.Duration) time.Duration { return period / 4 }

// hotFlowPass is how long a pass of a hot flow may hold its worker. A
// pass of a healthy HPA takes a few tens of milliseconds even on a busy
// API server; one that takes longer while its flow has passes in the lane
// is most likely waiting on the same provider. Moving a pass that is not
// costs nothing but where it runs: its HPA is passed on the same cadence,
// only off the workers.
const hotFlowPass = 250 * time.Millisecond

// hotShare is how long a pass of an HPA of period may hold its worker
// while one of its flows is hot.
func hotShare(period time.Duration) time.Duration { return min(hotFlowPass, slowPass(period)) }

// The default API groups of each kind of metric, where a metric that names
// no source is fetched.
const (
	resourceMetricsGroup = "metrics.k8s.io"
	customMetricsGroup   = "custom.metrics.k8s.io"
	externalMetricsGroup = "external.metrics.k8s.io"
)

// flows are what a pass of an HPA is counted against: its namespace and
// each metrics source it fetches from.
type flows []string

// flowsOf returns the flows of hpa in namespace; nil hpa (not in the
// cache) has its namespace alone.
func flowsOf(namespace string, hpa *v2.HorizontalPodAutoscaler) flows {
	out := flows{"namespace/" + namespace}
	if hpa == nil {
		return out
	}
	seen := map[string]bool{}
	for _, m := range hpa.Spec.Metrics {
		group := metricSourceGroup(m)
		if group != "" && !seen[group] {
			seen[group] = true
			out = append(out, "source/"+group)
		}
	}
	return out
}

// metricSourceGroup is the API group that m is fetched from.
func metricSourceGroup(m v2.MetricSpec) string {
	var id *v2.MetricIdentifier
	def := ""
	switch m.Type {
	case autoscalingv2.ResourceMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType:
		return resourceMetricsGroup
	case autoscalingv2.PodsMetricSourceType:
		def = customMetricsGroup
		if m.Pods != nil {
			id = &m.Pods.Metric
		}
	case autoscalingv2.ObjectMetricSourceType:
		def = customMetricsGroup
		if m.Object != nil {
			id = &m.Object.Metric
		}
	case autoscalingv2.ExternalMetricSourceType:
		def = externalMetricsGroup
		if m.External != nil {
			id = &m.External.Metric
		}
	}
	if g := id.SourceGroup(); g != "" {
		return g
	}
	return def
}

// slowLane counts, per flow, the passes on workers and the passes in the
// lane, and keeps the HPAs it turned away until a worker frees.
type slowLane struct {
	mu    sync.Mutex
	clock clock.PassiveClock
	// workers is the controller's; busy how many of them hold a pass.
	workers, busy int
	share         int
	onWork        map[string]int
	inLane        map[string]int
	// warm is when each flow cools, one period after its last pass in
	// the lane ended: a slow HPA's next pass comes a period later, and a
	// flow that cooled in between would give the next HPA that starts
	// hanging a quarter period of a worker again.
	warm map[string]time.Time
	// waiting are the HPAs turned away, in order, each handed back to
	// wake as a worker frees. Waiting on a timer instead would let one
	// worker turn every queued HPA of a hot flow away in a moment and
	// leave the workers idle until the timer: a fifth of the healthy
	// HPAs passed per period in the bench that way.
	waiting   []hpaKey
	isWaiting map[hpaKey]bool
	wake      func(hpaKey)
}

// newSlowLane returns the lane of a controller with workers workers; wake
// puts an HPA the lane turned away back in the queue.
func newSlowLane(workers int, clk clock.PassiveClock, wake func(hpaKey)) *slowLane {
	l := &slowLane{clock: clk, onWork: map[string]int{}, inLane: map[string]int{}, warm: map[string]time.Time{},
		isWaiting: map[hpaKey]bool{}, wake: wake}
	l.resize(workers)
	return l
}

// resize sets the workers, and the share of a hot flow to half of them, at
// least one.
func (l *slowLane) resize(workers int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.workers, l.share = workers, max(1, workers/2)
}

// laneHold is one pass's place: on a worker, then perhaps in the lane,
// until it ends.
type laneHold struct {
	lane   *slowLane
	flows  flows
	period time.Duration
	// inLane is where the pass is now; startedInLane and moved say how
	// it got there, which is what makes it slow (speed).
	inLane, startedInLane, moved bool
	done                         bool
}

// admit reports whether a pass of key, an HPA with flows and period, may
// start now, and its hold. A pass of a slow HPA starts in the lane and is
// always let in. Any other takes a worker, unless one of its flows is hot
// and holds its share of the workers already and no other worker would be
// left free: a hot flow borrows the workers nobody else asks for (as in
// API Priority and Fairness), but always leaves one for another flow. An
// HPA turned away waits in the lane until a worker frees.
func (l *slowLane) admit(key hpaKey, f flows, slow bool, period time.Duration) (*laneHold, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := &laneHold{lane: l, flows: f, period: period, inLane: slow, startedInLane: slow}
	if slow {
		l.add(l.inLane, f, 1)
		l.stopWaiting(key)
		return h, true
	}
	if othersFree := l.workers - l.busy - 1; othersFree < 1 {
		now := l.clock.Now()
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

// stopWaiting forgets key's wait: it got a pass by another way (an event,
// its slot) before a worker freed, and must not get a second.
func (l *slowLane) stopWaiting(key hpaKey) {
	if !l.isWaiting[key] {
		return
	}
	delete(l.isWaiting, key)
	l.waiting = slices.DeleteFunc(l.waiting, func(k hpaKey) bool { return k == key })
}

// freedLocked is called as a worker frees: it returns the HPA that waited
// longest, if any, for the caller to wake once the lock is released.
func (l *slowLane) freedLocked() (hpaKey, bool) {
	if len(l.waiting) == 0 {
		return hpaKey{}, false
	}
	key := l.waiting[0]
	l.waiting = l.waiting[1:]
	delete(l.isWaiting, key)
	return key, true
}

// wakeIf hands key back to the queue when there is one.
func (l *slowLane) wakeIf(key hpaKey, ok bool) {
	if ok && l.wake != nil {
		l.wake(key)
	}
}

// hotLocked reports whether flow has a pass in the lane, or had one less
// than a period ago.
func (l *slowLane) hotLocked(flow string, now time.Time) bool {
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

func (l *slowLane) add(counts map[string]int, f flows, n int) {
	for _, flow := range f {
		counts[flow] += n
		if counts[flow] == 0 {
			delete(counts, flow)
		}
	}
}

// toLane moves the pass off its worker into the lane and reports whether
// it did; a pass in the lane already, or over, stays where it is.
func (h *laneHold) toLane() bool {
	l := h.lane
	l.mu.Lock()
	if h.inLane || h.done {
		l.mu.Unlock()
		return false
	}
	h.inLane, h.moved = true, true
	l.busy--
	l.add(l.onWork, h.flows, -1)
	l.add(l.inLane, h.flows, 1)
	next, ok := l.freedLocked()
	l.mu.Unlock()
	l.wakeIf(next, ok)
	return true
}

// release ends the pass's hold; a second call does nothing.
func (h *laneHold) release() {
	l := h.lane
	l.mu.Lock()
	if h.done {
		l.mu.Unlock()
		return
	}
	h.done = true
	if !h.inLane {
		l.busy--
		l.add(l.onWork, h.flows, -1)
		next, ok := l.freedLocked()
		l.mu.Unlock()
		l.wakeIf(next, ok)
		return
	}
	defer l.mu.Unlock()
	l.add(l.inLane, h.flows, -1)
	until := l.clock.Now().Add(h.period)
	for _, flow := range h.flows {
		if until.After(l.warm[flow]) {
			l.warm[flow] = until
		}
	}
}

// hot reports whether one of the pass's flows is hot.
func (h *laneHold) hot() bool {
	l := h.lane
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	for _, flow := range h.flows {
		if l.hotLocked(flow, now) {
			return true
		}
	}
	return false
}

// passSpeed is what a pass says of its HPA's place in the lane.
type passSpeed int

const (
	// notPassed: no pass was made (the HPA could not be read), which
	// says nothing of its speed.
	notPassed passSpeed = iota
	passedFast
	passedSlow
)

// speed is the speed of the pass of hold that took took: slow when it was
// moved off its worker, or when it started in the lane and took longer
// than it could have held a worker there (its flow was hot: it was in it).
func (h *laneHold) speed(took, period time.Duration) passSpeed {
	if h.moved || (h.startedInLane && took > hotShare(period)) {
		return passedSlow
	}
	return passedFast
}

// passSpeedOf is the speed of the pass of hold that ended at end, whose
// turn is next.
func passSpeedOf(hold *laneHold, next turn, end time.Time) passSpeed {
	if next.last.start.IsZero() {
		return notPassed
	}
	return hold.speed(end.Sub(next.last.start), next.hpa.Period)
}
