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
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"
	testingclock "k8s.io/utils/clock/testing"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
)

// TestSlowLaneAdmission pins who gets a worker: a slow HPA always starts
// (in the lane, on no worker), a flow with no slow pass is never bounded,
// and a hot flow (a namespace or a metrics source with a pass in the lane,
// or one that ended less than a period ago) holds at most half of the
// workers when that would leave none free, and borrows the others.
func TestSlowLaneAdmission(t *testing.T) {
	const period = 15 * time.Second
	tenant := flows{"namespace/tenant", "source/" + externalMetricsGroup}
	other := flows{"namespace/other", "source/" + resourceMetricsGroup}
	sameSource := flows{"namespace/other", "source/" + externalMetricsGroup}
	for _, tc := range []struct {
		name    string
		workers int
		// inLane are the flows of passes already in the lane.
		inLane []flows
		// starting are the passes that ask for a worker, in order, none
		// of them slow.
		starting []flows
		admits   []bool
	}{
		{name: "flows with no slow pass are never bounded", workers: 2,
			starting: []flows{tenant, tenant, tenant}, admits: []bool{true, true, true}},
		{name: "a hot namespace borrows idle workers but leaves one free", workers: 4, inLane: []flows{tenant},
			starting: []flows{tenant, tenant, tenant, tenant, other}, admits: []bool{true, true, true, false, true}},
		{name: "a hot namespace within its share takes the last worker", workers: 4, inLane: []flows{tenant},
			starting: []flows{other, other, other, tenant}, admits: []bool{true, true, true, true}},
		{name: "a hot namespace over its share leaves the last worker to others", workers: 4, inLane: []flows{tenant},
			starting: []flows{tenant, tenant, other, tenant, other}, admits: []bool{true, true, true, false, true}},
		{name: "a hot metrics source is bounded whatever the namespace", workers: 4, inLane: []flows{tenant},
			starting: []flows{sameSource, sameSource, sameSource, sameSource, other}, admits: []bool{true, true, true, false, true}},
		{name: "one worker still lets a hot flow in", workers: 1, inLane: []flows{tenant},
			starting: []flows{tenant, tenant}, admits: []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newSlowLane(tc.workers, testingclock.NewFakePassiveClock(testStart), nil)
			for _, f := range tc.inLane {
				if _, ok := l.admit(hpaKey{name: "slow"}, f, true, period); !ok {
					t.Fatal("a slow HPA was kept out")
				}
			}
			for i, f := range tc.starting {
				if _, got := l.admit(hpaKey{name: strconv.Itoa(i)}, f, false, period); got != tc.admits[i] {
					t.Errorf("pass %d of %v admitted = %v, want %v", i, f, got, tc.admits[i])
				}
			}
		})
	}

	t.Run("slow HPAs start however many are in the lane", func(t *testing.T) {
		l := newSlowLane(1, testingclock.NewFakePassiveClock(testStart), nil)
		for i := range 50 {
			if _, ok := l.admit(hpaKey{name: strconv.Itoa(i)}, tenant, true, period); !ok {
				t.Fatalf("slow pass %d kept out", i)
			}
		}
	})

	t.Run("a flow cools a period after its last slow pass ended", func(t *testing.T) {
		clk := testingclock.NewFakePassiveClock(testStart)
		l := newSlowLane(2, clk, nil)
		a, b := hpaKey{name: "a"}, hpaKey{name: "b"}
		slow, _ := l.admit(hpaKey{name: "slow"}, tenant, true, period)
		first, ok := l.admit(a, tenant, false, period)
		if !ok {
			t.Fatal("first pass of a hot flow kept out")
		}
		if _, ok := l.admit(b, tenant, false, period); ok {
			t.Fatal("a hot flow took the last of two workers")
		}
		slow.release()
		clk.SetTime(testStart.Add(period - time.Millisecond))
		if _, ok := l.admit(b, tenant, false, period); ok {
			t.Fatal("a flow whose slow pass ended less than a period ago took the last worker")
		}
		clk.SetTime(testStart.Add(period))
		if _, ok := l.admit(b, tenant, false, period); !ok {
			t.Fatal("a flow whose slow pass ended a period ago was still bounded")
		}
		if len(l.waiting) != 0 {
			t.Errorf("waiting = %v after the HPA got its pass, want none", l.waiting)
		}
		first.release()
	})

	t.Run("an HPA turned away waits, once, for the next worker that frees", func(t *testing.T) {
		var woken []hpaKey
		l := newSlowLane(2, testingclock.NewFakePassiveClock(testStart), func(k hpaKey) { woken = append(woken, k) })
		a, b, c := hpaKey{name: "a"}, hpaKey{name: "b"}, hpaKey{name: "c"}
		slow, _ := l.admit(hpaKey{name: "slow"}, tenant, true, period)
		defer slow.release()
		onWorker, _ := l.admit(a, tenant, false, period)
		for _, k := range []hpaKey{b, c, b} {
			if _, ok := l.admit(k, tenant, false, period); ok {
				t.Fatalf("%v took the last worker", k)
			}
		}
		if len(woken) != 0 {
			t.Fatalf("woken %v before a worker freed", woken)
		}
		onWorker.release()
		if !slices.Equal(woken, []hpaKey{b}) {
			t.Errorf("woken = %v when one worker freed, want the HPA that waited longest, once", woken)
		}
		if !slices.Equal(l.waiting, []hpaKey{c}) {
			t.Errorf("still waiting = %v, want c", l.waiting)
		}
		// c gets its pass another way (its slot): a worker freeing later
		// must not give it a second.
		if _, ok := l.admit(c, other, false, period); !ok {
			t.Fatal("c kept out of a worker of a cold flow")
		}
		moving, _ := l.admit(b, other, false, period)
		moving.toLane()
		if !slices.Equal(woken, []hpaKey{b}) {
			t.Errorf("woken = %v, want no HPA woken for one that got its pass", woken)
		}
	})

	t.Run("a pass moved to the lane frees its worker and heats its flows", func(t *testing.T) {
		l := newSlowLane(2, testingclock.NewFakePassiveClock(testStart), nil)
		h, _ := l.admit(hpaKey{name: "a"}, tenant, false, period)
		if h.hot() {
			t.Error("a flow with no pass in the lane is hot")
		}
		h.toLane()
		if got := l.onWork[tenant[0]]; got != 0 || l.busy != 0 {
			t.Errorf("workers held by the tenant = %d, busy = %d, want 0 and 0", got, l.busy)
		}
		if got := l.inLane[tenant[1]]; got != 1 {
			t.Errorf("passes of the source in the lane = %d, want 1", got)
		}
		h.release()
		h.release()
		if len(l.onWork) != 0 || len(l.inLane) != 0 || l.busy != 0 {
			t.Errorf("after release: on workers %v, in lane %v, busy %d, want none", l.onWork, l.inLane, l.busy)
		}
		if !h.hot() {
			t.Error("a flow whose pass in the lane just ended is not hot")
		}
	})
}

// TestSlowLaneHysteresis pins when an HPA is in the lane: from its first
// slow pass, until fastPassesToLeave fast passes in a row.
func TestSlowLaneHysteresis(t *testing.T) {
	slow, fast := passedSlow, passedFast
	for _, tc := range []struct {
		name   string
		passes []passSpeed
		want   bool
	}{
		{name: "an HPA never passed is not slow", want: false},
		{name: "fast passes are not slow", passes: []passSpeed{fast, fast}, want: false},
		{name: "one slow pass puts the HPA in the lane", passes: []passSpeed{fast, slow}, want: true},
		{name: "one fast pass does not take it out", passes: []passSpeed{slow, fast}, want: true},
		{name: "two fast passes do not take it out", passes: []passSpeed{slow, fast, fast}, want: true},
		{name: "three fast passes in a row take it out", passes: []passSpeed{slow, fast, fast, fast}, want: false},
		{name: "a turn without a pass neither counts nor resets", passes: []passSpeed{slow, fast, notPassed, fast, notPassed, fast}, want: false},
		{name: "a flapping provider keeps it in", passes: []passSpeed{slow, fast, fast, slow, fast, fast}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := newPassLog()
			key := hpaKey{namespace: "tenant", name: "a"}
			for _, speed := range tc.passes {
				log.ended(key, testStart, speed)
			}
			if got := log.slow(key); got != tc.want {
				t.Errorf("slow = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("an overrun counts as slow before the pass ends, and resets the count of fast passes", func(t *testing.T) {
		log := newPassLog()
		key := hpaKey{namespace: "tenant", name: "a"}
		log.ended(key, testStart, slow)
		log.ended(key, testStart, fast)
		log.ended(key, testStart, fast)
		log.overran(key)
		log.ended(key, testStart, fast)
		if !log.slow(key) {
			t.Error("an HPA left the lane with one fast pass after an overrun")
		}
	})
}

// TestPassSpeed pins which passes count as slow: one moved off its worker,
// and one that started in the lane and took longer than a pass of a hot
// flow may hold a worker; a pass that ended on its worker is fast, however
// long it took.
func TestPassSpeed(t *testing.T) {
	const period = 15 * time.Second
	tenant := flows{"namespace/tenant"}
	for _, tc := range []struct {
		name    string
		inLane  bool
		moved   bool
		took    time.Duration
		want    passSpeed
		noStart bool
	}{
		{name: "a pass that ended on its worker is fast", took: slowPass(period), want: passedFast},
		{name: "a pass moved off its worker is slow", moved: true, took: hotShare(period), want: passedSlow},
		{name: "a pass in the lane within a hot flow's share is fast", inLane: true, took: hotShare(period), want: passedFast},
		{name: "a pass in the lane past a hot flow's share is slow", inLane: true, took: hotShare(period) + time.Millisecond, want: passedSlow},
		{name: "no pass says nothing", inLane: true, took: period, noStart: true, want: notPassed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newSlowLane(2, testingclock.NewFakePassiveClock(testStart), nil)
			hold, _ := l.admit(hpaKey{name: "a"}, tenant, tc.inLane, period)
			if tc.moved {
				hold.toLane()
			}
			next := turn{hpa: cadence.HPA{Period: period}}
			if !tc.noStart {
				next.last.start = testStart
			}
			if got := passSpeedOf(hold, next, testStart.Add(tc.took)); got != tc.want {
				t.Errorf("speed = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFlowsOf pins the flows a pass counts against: its namespace and the
// API group of each of its metrics, once each.
func TestFlowsOf(t *testing.T) {
	external := func(name, group string) v2.MetricSpec {
		m := v2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &v2.ExternalMetricSource{Metric: v2.MetricIdentifier{Name: name}}}
		if group != "" {
			m.External.Metric.Source = &v2.MetricSourceReference{APIGroup: group}
		}
		return m
	}
	for _, tc := range []struct {
		name string
		hpa  *v2.HorizontalPodAutoscaler
		want flows
	}{
		{name: "an HPA not in the cache has its namespace alone", want: flows{"namespace/ns"}},
		{name: "a resource metric is fetched from metrics.k8s.io", hpa: newHPA(1, 2, cpuUtilization(50)),
			want: flows{"namespace/ns", "source/metrics.k8s.io"}},
		{name: "external metrics of one group count once", hpa: newHPA(1, 2, external("a", ""), external("b", "")),
			want: flows{"namespace/ns", "source/external.metrics.k8s.io"}},
		{name: "a metric routed to a source counts against that source", hpa: newHPA(1, 2, external("a", "tenant.example.com"), cpuUtilization(50)),
			want: flows{"namespace/ns", "source/tenant.example.com", "source/metrics.k8s.io"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := flowsOf("ns", tc.hpa); !slices.Equal(got, tc.want) {
				t.Errorf("flows = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOverrunningPassMovesToTheLane: a pass that runs past a quarter of
// its period leaves its worker there and then; it goes on in the lane,
// and its end records and requeues the HPA as any pass's does. The next
// pass of the now slow HPA starts in the lane at once and keeps the
// HPA's period.
func TestOverrunningPassMovesToTheLane(t *testing.T) {
	h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
	h.scales.setScale(3, 3, testSelector)
	h.addPods(3, 50)
	h.drainQueue()
	gate := newGatedScales(h.scales)
	h.c.opts.ScaleClient = gate
	q := recordQueue(h)
	key := h.key(testHPAName)

	// processNextWorkItem runs the worker's turn and reports when the
	// worker is free again.
	var workers sync.WaitGroup
	processNext := func() chan struct{} {
		free := make(chan struct{})
		h.c.queue.Add(key)
		workers.Go(func() {
			defer close(free)
			if !h.c.processNextWorkItem(h.ctx) {
				t.Error("processNextWorkItem = false")
			}
		})
		return free
	}
	defer workers.Wait()

	// The worker's timer is the one waiter the clock gains: the queue
	// has no delayed item to wait for while the pass is held.
	waiters := h.clock.Waiters()
	free := processNext()
	<-gate.entered
	for h.clock.Waiters() <= waiters {
		runtime.Gosched()
	}
	if h.c.passes.slow(key) {
		t.Fatal("the HPA counts as slow before its pass overran")
	}
	h.clock.Step(slowPass(15 * time.Second))
	<-free
	if !h.c.passes.slow(key) {
		t.Error("the HPA whose pass overran is not in the slow lane")
	}
	h.c.lane.mu.Lock()
	onWork, inLane := len(h.c.lane.onWork), h.c.lane.inLane["namespace/"+testNamespace]
	h.c.lane.mu.Unlock()
	if onWork != 0 || inLane != 1 {
		t.Errorf("flows on workers = %d, passes of the namespace in the lane = %d; want 0 and 1", onWork, inLane)
	}
	q.calls = nil
	gate.release <- struct{}{}
	h.c.inFlight.Wait()
	if got := q.recorded(); !sameStrings(got, []string{"AddRateLimited " + key.String()}) {
		t.Errorf("queue calls at the end of the moved pass = %v, want the HPA's period", got)
	}
	if h.source.statusUpdates != 1 {
		t.Errorf("status writes = %d, want the moved pass's one", h.source.statusUpdates)
	}

	// The next pass starts in the lane: the worker is free before the
	// pass reads the scale.
	h.c.queue.Forget(key)
	q.calls = nil
	free = processNext()
	<-free
	<-gate.entered
	gate.release <- struct{}{}
	h.c.inFlight.Wait()
	if got := q.recorded(); !slices.Contains(got, "AddRateLimited "+key.String()) {
		t.Errorf("queue calls of the slow HPA's pass = %v, want its period and no wait for the lane", got)
	}
}

// TestHotFlowPassLeavesItsWorkerEarly: a pass holds its worker for a
// quarter period while its flows are cold, and for hotShare once one of
// them has a pass in the lane, whether the flow was hot when the pass
// started or heated while it ran. This is what keeps a provider that
// starts hanging for many HPAs at once from holding the workers a quarter
// period per HPA.
func TestHotFlowPassLeavesItsWorkerEarly(t *testing.T) {
	const period = 15 * time.Second
	for _, tc := range []struct {
		name string
		// hotAtStart heats the namespace before the pass; heatAfter
		// heats it after that many checks of hotShare.
		hotAtStart bool
		heatAfter  int
		// steps are the clock's steps until the worker is free.
		steps []time.Duration
	}{
		{name: "a pass of a cold flow holds its worker for a quarter period",
			steps: []time.Duration{hotShare(period), slowPass(period) - hotShare(period)}},
		{name: "a pass of a hot flow leaves its worker after hotShare", hotAtStart: true,
			steps: []time.Duration{hotShare(period)}},
		{name: "a pass whose flow heats while it runs leaves at the next check", heatAfter: 2,
			steps: []time.Duration{hotShare(period), hotShare(period), hotShare(period)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
			h.scales.setScale(3, 3, testSelector)
			h.addPods(3, 50)
			h.drainQueue()
			gate := newGatedScales(h.scales)
			h.c.opts.ScaleClient = gate
			key := h.key(testHPAName)
			heat := func() {
				other, _ := h.c.lane.admit(hpaKey{namespace: testNamespace, name: "other"}, flows{"namespace/" + testNamespace}, true, period)
				t.Cleanup(other.release)
			}
			if tc.hotAtStart {
				heat()
			}
			waiters := h.clock.Waiters()
			free := make(chan struct{})
			h.c.queue.Add(key)
			go func() {
				defer close(free)
				h.c.processNextWorkItem(h.ctx)
			}()
			<-gate.entered
			// armed waits until the worker waits on its timer again, or
			// reports that it is free.
			armed := func() bool {
				for {
					select {
					case <-free:
						return false
					default:
					}
					if h.clock.Waiters() > waiters {
						return true
					}
					runtime.Gosched()
				}
			}
			for i, step := range tc.steps {
				if !armed() {
					t.Fatalf("the worker was free after %d of %d steps", i, len(tc.steps))
				}
				if tc.heatAfter > 0 && i == tc.heatAfter {
					heat()
				}
				h.clock.Step(step)
			}
			if armed() {
				gate.release <- struct{}{}
				h.clock.Step(slowPass(period))
				<-free
				t.Fatalf("the worker was still held after %d steps", len(tc.steps))
			}
			if !h.c.passes.slow(key) {
				t.Error("the HPA whose pass left its worker is not in the slow lane")
			}
			gate.release <- struct{}{}
			h.c.inFlight.Wait()
		})
	}
}

// gatedScales holds each scale read until the test releases it, as a
// pass stuck on a slow provider would be.
type gatedScales struct {
	scale.ScalesGetter
	entered chan struct{}
	release chan struct{}
}

func newGatedScales(s scale.ScalesGetter) gatedScales {
	return gatedScales{ScalesGetter: s, entered: make(chan struct{}), release: make(chan struct{})}
}

func (g gatedScales) Scales(namespace string) scale.ScaleInterface {
	return gatedScaleInterface{ScaleInterface: g.ScalesGetter.Scales(namespace), g: g}
}

type gatedScaleInterface struct {
	scale.ScaleInterface
	g gatedScales
}

func (s gatedScaleInterface) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	s.g.entered <- struct{}{}
	<-s.g.release
	return s.ScaleInterface.Get(ctx, gr, name, opts)
}

// TestHotFlowInTheLoop: an HPA whose namespace has a pass in the lane and
// holds its share of the workers already, with no other worker free, is
// turned away without a pass and comes back to the queue as soon as a
// worker frees; an HPA of another namespace takes the worker.
func TestHotFlowInTheLoop(t *testing.T) {
	for _, tc := range []struct {
		name      string
		namespace string
		wantPass  bool
	}{
		{name: "an HPA of the hot namespace waits for a worker to free", namespace: testNamespace},
		{name: "an HPA of another namespace takes a worker", namespace: "other", wantPass: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{})
			h.scales.setScale(3, 3, testSelector)
			h.addPods(3, 50)
			h.drainQueue()
			h.c.lane.resize(2)
			// A slow pass of the namespace is in the lane, and another of
			// its passes holds the one worker of its share.
			hot := flows{"namespace/" + testNamespace}
			slow, _ := h.c.lane.admit(hpaKey{namespace: testNamespace, name: "slow"}, hot, true, time.Minute)
			defer slow.release()
			busy, _ := h.c.lane.admit(hpaKey{namespace: testNamespace, name: "busy"}, hot, false, time.Minute)
			q := recordQueue(h)
			key := hpaKey{namespace: tc.namespace, name: testHPAName}
			h.c.queue.Add(key)
			q.calls = nil
			if !h.c.processNextWorkItem(h.ctx) {
				t.Fatal("processNextWorkItem = false")
			}
			h.c.inFlight.Wait()
			h.c.lane.mu.Lock()
			turnedAway := h.c.lane.isWaiting[key]
			h.c.lane.mu.Unlock()
			if turnedAway == tc.wantPass {
				t.Fatalf("turned away = %v, want %v (queue calls %v)", turnedAway, !tc.wantPass, q.recorded())
			}
			if tc.wantPass {
				busy.release()
				return
			}
			if got := q.recorded(); len(got) != 0 {
				t.Errorf("queue calls of the HPA turned away = %v, want none until a worker frees", got)
			}
			busy.release()
			if got := q.recorded(); !slices.Equal(got, []string{"Add " + key.String()}) {
				t.Errorf("queue calls once a worker freed = %v, want the HPA back at once", got)
			}
		})
	}
}
