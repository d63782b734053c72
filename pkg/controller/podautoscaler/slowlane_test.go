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
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
)

// TestPassSpeedOf: a turn with no pass (the HPA could not be read) says
// nothing of the HPA's speed; a pass says what its hold says.
func TestPassSpeedOf(t *testing.T) {
	const period = 15 * time.Second
	hold, _ := cadence.NewLane[hpaKey](2).Admit(hpaKey{name: "a"}, cadence.Flows{"namespace/tenant"}, true, period, testStart)
	passed := turn{hpa: cadence.HPA{Period: period}}
	passed.last.start = testStart
	for _, tc := range []struct {
		name string
		next turn
		want cadence.Speed
	}{
		{name: "no pass says nothing", next: turn{hpa: cadence.HPA{Period: period}}, want: cadence.NotPassed},
		{name: "a pass in the lane past a hot flow's share is slow", next: passed, want: cadence.PassedSlow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := passSpeedOf(hold, tc.next, testStart.Add(period)); got != tc.want {
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
		want cadence.Flows
	}{
		{name: "an HPA not in the cache has its namespace alone", want: cadence.Flows{"namespace/ns"}},
		{name: "a resource metric is fetched from metrics.k8s.io", hpa: newHPA(1, 2, cpuUtilization(50)),
			want: cadence.Flows{"namespace/ns", "source/metrics.k8s.io"}},
		{name: "external metrics of one group count once", hpa: newHPA(1, 2, external("a", ""), external("b", "")),
			want: cadence.Flows{"namespace/ns", "source/external.metrics.k8s.io"}},
		{name: "a metric routed to a source counts against that source", hpa: newHPA(1, 2, external("a", "tenant.example.com"), cpuUtilization(50)),
			want: cadence.Flows{"namespace/ns", "source/tenant.example.com", "source/metrics.k8s.io"}},
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
	h.clock.Step(cadence.SlowPass(15 * time.Second))
	<-free
	if !h.c.passes.slow(key) {
		t.Error("the HPA whose pass overran is not in the slow lane")
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
// quarter period while its flows are cold, and for cadence.HotShare once one of
// them has a pass in the lane, whether the flow was hot when the pass
// started or heated while it ran. This is what keeps a provider that
// starts hanging for many HPAs at once from holding the workers a quarter
// period per HPA.
func TestHotFlowPassLeavesItsWorkerEarly(t *testing.T) {
	const period = 15 * time.Second
	for _, tc := range []struct {
		name string
		// hotAtStart heats the namespace before the pass; heatAfter
		// heats it after that many checks of cadence.HotShare.
		hotAtStart bool
		heatAfter  int
		// steps are the clock's steps until the worker is free.
		steps []time.Duration
	}{
		{name: "a pass of a cold flow holds its worker for a quarter period",
			steps: []time.Duration{cadence.HotShare(period), cadence.SlowPass(period) - cadence.HotShare(period)}},
		{name: "a pass of a hot flow leaves its worker after HotShare", hotAtStart: true,
			steps: []time.Duration{cadence.HotShare(period)}},
		{name: "a pass whose flow heats while it runs leaves at the next check", heatAfter: 2,
			steps: []time.Duration{cadence.HotShare(period), cadence.HotShare(period), cadence.HotShare(period)}},
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
				other, _ := h.c.lane.Admit(hpaKey{namespace: testNamespace, name: "other"}, cadence.Flows{"namespace/" + testNamespace}, true, period, h.clock.Now())
				t.Cleanup(func() { other.Release(h.clock.Now()) })
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
				h.clock.Step(cadence.SlowPass(period))
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
			h.c.lane.Resize(2)
			// A slow pass of the namespace is in the lane, and another of
			// its passes holds the one worker of its share.
			hot := cadence.Flows{"namespace/" + testNamespace}
			slow, _ := h.c.lane.Admit(hpaKey{namespace: testNamespace, name: "slow"}, hot, true, time.Minute, h.clock.Now())
			defer slow.Release(h.clock.Now())
			busy, _ := h.c.lane.Admit(hpaKey{namespace: testNamespace, name: "busy"}, hot, false, time.Minute, h.clock.Now())
			freeBusy := func() { h.c.wakeFreed(busy.Release(h.clock.Now())) }
			q := recordQueue(h)
			key := hpaKey{namespace: tc.namespace, name: testHPAName}
			h.c.queue.Add(key)
			q.calls = nil
			if !h.c.processNextWorkItem(h.ctx) {
				t.Fatal("processNextWorkItem = false")
			}
			h.c.inFlight.Wait()
			if got := q.recorded(); !tc.wantPass && len(got) != 0 {
				t.Errorf("queue calls of the HPA turned away = %v, want none until a worker frees", got)
			}
			q.calls = nil
			freeBusy()
			if tc.wantPass {
				if got := q.recorded(); len(got) != 0 {
					t.Errorf("queue calls once a worker freed = %v, want none: the HPA had its pass", got)
				}
				return
			}
			if got := q.recorded(); !slices.Equal(got, []string{"Add " + key.String()}) {
				t.Errorf("queue calls once a worker freed = %v, want the HPA back at once", got)
			}
		})
	}
}
