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
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func TestLoopOnAdd(t *testing.T) {
	t.Run("a new HPA is registered and queued at once, as v1.37", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		h.addHPA(newHPA(1, 10))
		if h.monitor.hpaCount != 1 {
			t.Errorf("HPA count = %d, want 1", h.monitor.hpaCount)
		}
		settle()
		if n := h.c.queue.Len(); n != 1 {
			t.Fatalf("queue length right after the add = %d, want 1 (no wait for the period)", n)
		}
		key, _ := h.c.queue.Get()
		if key != h.key(testHPAName) {
			t.Errorf("queued key = %v, want %v", key, h.key(testHPAName))
		}
		h.c.queue.Done(key)
	})

	t.Run("an update of a known HPA queues it again without counting it twice", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		q := recordQueue(h)
		hpa := newHPA(1, 10)
		h.addHPA(hpa)
		h.c.onAdd(0, hpa)
		if h.monitor.hpaCount != 1 || h.c.selectors.len() != 1 {
			t.Errorf("HPA count = %d (index %d), want 1", h.monitor.hpaCount, h.c.selectors.len())
		}
		want := []string{"Add default/web", "Add default/web"}
		if got := q.recorded(); !sameStrings(got, want) {
			t.Errorf("queue calls = %v, want %v", got, want)
		}
		settle()
		if n := h.c.queue.Len(); n != 1 {
			t.Errorf("queue length = %d, want the key once", n)
		}
	})

	t.Run("an object without metadata or with a malformed key is refused and queues nothing", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		q := recordQueue(h)
		h.c.onAdd(0, "not an HPA")
		h.c.onDelete(0, 42)
		h.c.onDelete(0, cache.DeletedFinalStateUnknown{Key: "default/web/extra"})
		if got := q.recorded(); len(got) != 0 {
			t.Errorf("queue calls = %v, want none", got)
		}
		if h.monitor.hpaCount != 0 || h.c.selectors.len() != 0 {
			t.Errorf("HPA count = %d, want 0", h.monitor.hpaCount)
		}
	})
}

func TestLoopOnDelete(t *testing.T) {
	hpa := newHPA(1, 10)
	for _, tc := range []struct {
		name      string
		deleted   any
		wantCalls []string
		wantCount int
	}{
		{
			name:      "a deleted HPA is forgotten and uncounted",
			deleted:   hpa,
			wantCalls: []string{"Add default/web", "Forget default/web"},
		},
		{
			name:      "a tombstone of a deleted HPA is forgotten and uncounted",
			deleted:   cache.DeletedFinalStateUnknown{Key: "default/web", Obj: hpa},
			wantCalls: []string{"Add default/web", "Forget default/web"},
		},
		{
			name:      "a tombstone without its object is forgotten by its key",
			deleted:   cache.DeletedFinalStateUnknown{Key: "default/web"},
			wantCalls: []string{"Add default/web", "Forget default/web"},
		},
		{
			name:      "deleting an HPA never seen leaves the count alone",
			deleted:   newHPAIn("default", "api"),
			wantCalls: []string{"Add default/web", "Forget default/api"},
			wantCount: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, harnessOptions{})
			q := recordQueue(h)
			h.addHPA(hpa)
			h.c.onDelete(0, tc.deleted)
			if got := q.recorded(); !sameStrings(got, tc.wantCalls) {
				t.Errorf("queue calls = %v, want %v", got, tc.wantCalls)
			}
			if h.monitor.hpaCount != tc.wantCount || h.c.selectors.len() != tc.wantCount {
				t.Errorf("HPA count = %d (index %d), want %d", h.monitor.hpaCount, h.c.selectors.len(), tc.wantCount)
			}
		})
	}
}

func newHPAIn(namespace, name string) *v2.HorizontalPodAutoscaler {
	hpa := newHPA(1, 10)
	hpa.Namespace, hpa.Name = namespace, name
	return hpa
}

func TestLoopHPACount(t *testing.T) {
	h := newHarness(t, nil, harnessOptions{})
	second := newFakeSource()
	h.c.opts.Sources = append(h.c.opts.Sources, second)
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"the first HPA is counted", func() { h.c.onAdd(0, newHPAIn("default", "web")) }, 1},
		{"an HPA of another namespace is counted", func() { h.c.onAdd(0, newHPAIn("staging", "web")) }, 2},
		{"an HPA of the other source with the same name is counted apart", func() { h.c.onAdd(1, newHPAIn("default", "web")) }, 3},
		{"an update is not counted", func() { h.c.onAdd(0, newHPAIn("staging", "web")) }, 3},
		{"a delete is uncounted", func() { h.c.onDelete(0, newHPAIn("default", "web")) }, 2},
		{"a second delete of it changes nothing", func() { h.c.onDelete(0, newHPAIn("default", "web")) }, 2},
		{"the other source's HPA is still counted until its own delete", func() { h.c.onDelete(1, newHPAIn("default", "web")) }, 1},
	}
	for _, s := range steps {
		s.do()
		if h.monitor.hpaCount != s.want {
			t.Fatalf("%s: HPA count = %d, want %d", s.name, h.monitor.hpaCount, s.want)
		}
	}
}

func TestLoopKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  hpaKey
		want string
	}{
		{"the first source's key is namespace/name", hpaKey{source: 0, namespace: "default", name: "web"}, "default/web"},
		{"another source's key carries its index", hpaKey{source: 1, namespace: "default", name: "web"}, "default/web#1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.key.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("the fixed-interval limiter delays every retry by the period", func(t *testing.T) {
		l := fixedIntervalLimiter{interval: 15 * time.Second}
		key := hpaKey{namespace: "default", name: "web"}
		for range 3 {
			if d := l.When(key); d != 15*time.Second {
				t.Fatalf("When = %v, want 15s", d)
			}
		}
		l.Forget(key)
		if n := l.NumRequeues(key); n != 1 {
			t.Errorf("NumRequeues = %d, want 1", n)
		}
	})
}

// erroringSource fails every Get, as a broken cache would.
type erroringSource struct {
	*fakeSource
	err error
}

func (s erroringSource) Get(string, string) (*v2.HorizontalPodAutoscaler, bool, error) {
	return nil, false, s.err
}

func TestLoopProcessNextWorkItem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(h *harness)
		// wantCalls are the queue calls of the one processNextWorkItem.
		wantCalls   []string
		wantDeleted []string
		wantWrites  int
	}{
		{
			name: "a reconciled HPA comes back one period later",
			setup: func(h *harness) {
				h.addHPA(newHPA(1, 10, cpuUtilization(50)))
				h.scales.setScale(12, 12, testSelector)
			},
			wantCalls:  []string{"AddRateLimited default/web"},
			wantWrites: 1,
		},
		{
			name: "an HPA whose pass failed comes back one period later",
			setup: func(h *harness) {
				h.addHPA(newHPA(1, 10, cpuUtilization(50)))
				h.scales.getErr = errBoom
			},
			wantCalls:  []string{"AddRateLimited default/web"},
			wantWrites: 1,
		},
		{
			name: "an HPA the cache cannot read comes back one period later",
			setup: func(h *harness) {
				h.c.opts.Sources = []HPASource{erroringSource{fakeSource: h.source, err: errBoom}}
			},
			wantCalls: []string{"AddRateLimited default/web"},
		},
		{
			name:        "a deleted HPA is not queued again and its series are dropped",
			setup:       func(*harness) {},
			wantDeleted: []string{"default/web"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, harnessOptions{})
			tc.setup(h)
			h.c.queue.Add(h.key(testHPAName))
			q := recordQueue(h)
			q.calls = nil
			if !h.c.processNextWorkItem(h.ctx) {
				t.Fatal("processNextWorkItem = false, want true while the queue runs")
			}
			if got := q.recorded(); !sameStrings(got, tc.wantCalls) {
				t.Errorf("queue calls = %v, want %v", got, tc.wantCalls)
			}
			if !sameStrings(h.monitor.deleted, tc.wantDeleted) {
				t.Errorf("deleted series = %v, want %v", h.monitor.deleted, tc.wantDeleted)
			}
			if h.source.statusUpdates != tc.wantWrites {
				t.Errorf("status writes = %d, want %d", h.source.statusUpdates, tc.wantWrites)
			}
			settle()
			if n := h.c.queue.Len(); n != 0 {
				t.Errorf("queue length right after the pass = %d, want 0", n)
			}
			if len(tc.wantCalls) > 0 {
				h.clock.Step(14 * time.Second)
				settle()
				if n := h.c.queue.Len(); n != 0 {
					t.Fatalf("queue length 14s after the pass = %d, want 0", n)
				}
				waitReady(t, h, 1, time.Second)
				checkReadyAfter(t, h, 15*time.Second, time.Second)
			} else {
				h.clock.Step(time.Minute)
				settle()
				if n := h.c.queue.Len(); n != 0 {
					t.Errorf("queue length a minute later = %d, want 0", n)
				}
			}
		})
	}

	t.Run("a shut-down queue stops the worker", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		h.c.queue.ShutDown()
		if h.c.processNextWorkItem(h.ctx) {
			t.Error("processNextWorkItem = true after shutdown, want false")
		}
		done := make(chan struct{})
		go func() { h.c.worker(h.ctx); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("worker did not return after the queue shut down")
		}
	})
}

func TestLoopReconcileKey(t *testing.T) {
	t.Run("a deleted HPA's behavior history is forgotten and its series dropped", func(t *testing.T) {
		behaviorHPA := func() *v2.HorizontalPodAutoscaler {
			hpa := newHPA(1, 30, cpuUtilization(50))
			hpa.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{
				ScaleUp: rules(nil, nil, podsPolicy(2, 60)),
			}
			return hpa
		}
		h := newHarness(t, behaviorHPA(), harnessOptions{})
		h.scales.setScale(3, 3, testSelector)
		h.addPods(3, 100)
		h.metrics.SetResource("cpu", cpuMetrics(333, 333, 333))
		if err := h.reconcile(testHPAName); err != nil {
			t.Fatalf("first pass: %v", err)
		}
		// The HPA goes away and comes back under the same name.
		h.source.delete(testNamespace, testHPAName)
		_, deleted, err := h.c.reconcileKey(h.ctx, h.key(testHPAName))
		if !deleted || err != nil {
			t.Fatalf("reconcileKey of a deleted HPA = %v, %v; want true, nil", deleted, err)
		}
		if !sameStrings(h.monitor.deleted, []string{"default/web"}) {
			t.Errorf("deleted series = %v, want [default/web]", h.monitor.deleted)
		}
		h.addHPA(behaviorHPA())
		h.clock.Step(15 * time.Second)
		if err := h.reconcile(testHPAName); err != nil {
			t.Fatalf("pass after re-creation: %v", err)
		}
		// With the first HPA's scale-up of +2 forgotten, the new HPA may
		// add its own +2 within the same minute.
		if got := h.scales.updates; !sameInt32s(got, []int32{5, 7}) {
			t.Errorf("scale updates = %v, want [5 7]", got)
		}
	})

	t.Run("an HPA the cache cannot read is reported and not taken for deleted", func(t *testing.T) {
		h := newHarness(t, newHPA(1, 10), harnessOptions{})
		h.c.opts.Sources = []HPASource{erroringSource{fakeSource: h.source, err: errBoom}}
		_, deleted, err := h.c.reconcileKey(h.ctx, h.key(testHPAName))
		if deleted || !errors.Is(err, errBoom) {
			t.Errorf("reconcileKey = %v, %v; want false, %v", deleted, err, errBoom)
		}
		if len(h.monitor.deleted) != 0 {
			t.Errorf("deleted series = %v, want none", h.monitor.deleted)
		}
	})
}

func sameInt32s(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// runnableSource is a fakeSource whose informer can run: it lists nothing
// and watches the returned fake watcher.
func runnableSource() (*fakeSource, *watch.RaceFreeFakeWatcher) {
	w := watch.NewRaceFreeFake()
	s := newFakeSource()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &v2.HorizontalPodAutoscalerList{}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	// The fake watcher cannot stream the initial list as a watch-list
	// request would need; the informer must list, as it does with a fake
	// clientset.
	s.informer = cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, noWatchListClient{}),
		&v2.HorizontalPodAutoscaler{}, 0, cache.Indexers{})
	return s, w
}

// noWatchListClient is a client that says it does not support watch-list
// semantics.
type noWatchListClient struct{}

func (noWatchListClient) IsWatchListSemanticsUnSupported() bool { return true }

// withRunnableInformers rebuilds h's controller on a runnable source and a
// pod informer of a fake clientset, which start is to run.
func withRunnableInformers(t *testing.T, h *harness) (*watch.RaceFreeFakeWatcher, func(ctx context.Context)) {
	t.Helper()
	src, w := runnableSource()
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	opts := h.c.opts
	opts.Sources = []HPASource{src}
	opts.PodInformer = factory.Core().V1().Pods()
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.c, h.source = c, src
	return w, func(ctx context.Context) {
		factory.Start(ctx.Done())
		go src.informer.RunWithContext(ctx)
	}
}

func TestHasSynced(t *testing.T) {
	h := newHarness(t, nil, harnessOptions{})
	_, start := withRunnableInformers(t, h)
	if h.c.HasSynced() {
		t.Fatal("HasSynced = true before any informer ran")
	}
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	start(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for !h.c.HasSynced() {
		if time.Now().After(deadline) {
			t.Fatal("HasSynced never became true once the informers ran")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLoopRun(t *testing.T) {
	t.Run("Run reconciles an HPA the informer delivers at once, as v1.37", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		w, start := withRunnableInformers(t, h)
		ctx, cancel := context.WithCancel(h.ctx)
		defer cancel()
		start(ctx)
		done := make(chan struct{})
		go func() { h.c.Run(ctx, 2); close(done) }()

		h.scales.setScale(12, 12, testSelector)
		hpa := newHPA(1, 10, cpuUtilization(50))
		h.source.set(hpa)
		w.Add(hpa)
		deadline := time.Now().Add(5 * time.Second)
		for h.monitor.count() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the informer's add never reached the controller")
			}
			time.Sleep(time.Millisecond)
		}
		// The fake clock stands still: the pass must come without it.
		for h.scales.replicas() != 10 {
			if time.Now().After(deadline) {
				t.Fatalf("target never scaled to maxReplicas with the clock still; a new HPA must be reconciled at once")
			}
			time.Sleep(time.Millisecond)
		}

		// An update reaches the controller without counting the HPA
		// again; a delete uncounts it.
		changed := hpa.DeepCopy()
		changed.ResourceVersion = "2"
		w.Modify(changed)
		w.Delete(changed)
		for h.monitor.count() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("HPA count = %d after the informer's delete, want 0", h.monitor.count())
			}
			time.Sleep(time.Millisecond)
		}

		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return after its context was cancelled")
		}
		if !h.c.queue.ShuttingDown() {
			t.Error("queue still running after Run returned")
		}
	})

	t.Run("Run returns when its context ends before the caches sync", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		ctx, cancel := context.WithCancel(h.ctx)
		done := make(chan struct{})
		go func() { h.c.Run(ctx, 1); close(done) }()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return after its context was cancelled")
		}
		if !h.c.queue.ShuttingDown() {
			t.Error("queue still running after Run returned")
		}
	})
}

func (m *fakeMonitor) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hpaCount
}

func TestLoopNew(t *testing.T) {
	valid := func(t *testing.T) Options {
		h := newHarness(t, nil, harnessOptions{})
		return h.c.opts
	}
	for _, tc := range []struct {
		name    string
		mutate  func(*Options)
		wantErr string
	}{
		{"valid options build a controller", func(*Options) {}, ""},
		{"no HPA source is refused", func(o *Options) { o.Sources = nil }, "every dependency of the HPA controller must be set"},
		{"a nil HPA source is refused", func(o *Options) { o.Sources = []HPASource{nil} }, "every dependency of the HPA controller must be set"},
		{"a missing pod informer is refused", func(o *Options) { o.PodInformer = nil }, "every dependency of the HPA controller must be set"},
		{"a missing scale client is refused", func(o *Options) { o.ScaleClient = nil }, "every dependency of the HPA controller must be set"},
		{"a missing REST mapper is refused", func(o *Options) { o.Mapper = nil }, "every dependency of the HPA controller must be set"},
		{"a missing metrics client is refused", func(o *Options) { o.MetricsClient = nil }, "every dependency of the HPA controller must be set"},
		{"a missing event recorder is refused", func(o *Options) { o.EventRecorder = nil }, "every dependency of the HPA controller must be set"},
		{"a missing monitor is refused", func(o *Options) { o.Monitor = nil }, "every dependency of the HPA controller must be set"},
		{"a missing clock is refused", func(o *Options) { o.Clock = nil }, "every dependency of the HPA controller must be set"},
		{"missing feature gates are refused", func(o *Options) { o.Gates = nil }, "every dependency of the HPA controller must be set"},
		{"a zero sync period is refused", func(o *Options) { o.SyncPeriod = 0 }, "sync period must be positive, got 0s"},
		{"a negative sync period is refused", func(o *Options) { o.SyncPeriod = -time.Second }, "sync period must be positive, got -1s"},
		{"a negative tolerance is refused", func(o *Options) { o.Tolerance = -0.1 }, "tolerance must be a non-negative number, got -0.1"},
		{"a NaN tolerance is refused", func(o *Options) { o.Tolerance = math.NaN() }, "tolerance must be a non-negative number, got NaN"},
		{"a negative downscale stabilization window is refused", func(o *Options) { o.DownscaleStabilizationWindow = -time.Minute },
			"downscale stabilization window must not be negative, got -1m0s"},
		{"a negative CPU initialization period is refused", func(o *Options) { o.CPUInitializationPeriod = -time.Minute },
			"CPU initialization period must not be negative, got -1m0s"},
		{"a negative initial readiness delay is refused", func(o *Options) { o.InitialReadinessDelay = -time.Second },
			"initial readiness delay must not be negative, got -1s"},
		{"every bad setting is reported at once", func(o *Options) { o.SyncPeriod, o.Tolerance = 0, -1 },
			"sync period must be positive, got 0s\ntolerance must be a non-negative number, got -1"},
		{"a zero tolerance and zero windows are accepted", func(o *Options) {
			o.Tolerance, o.DownscaleStabilizationWindow, o.CPUInitializationPeriod, o.InitialReadinessDelay = 0, 0, 0, 0
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := valid(t)
			tc.mutate(&opts)
			c, err := New(opts)
			switch {
			case tc.wantErr == "" && (err != nil || c == nil):
				t.Errorf("New = %v, %v; want a controller", c, err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Errorf("New error = %v, want %q", err, tc.wantErr)
			case tc.wantErr != "" && c != nil:
				t.Errorf("New returned a controller with an error")
			}
		})
	}

	t.Run("a source whose informer has stopped is refused", func(t *testing.T) {
		opts := valid(t)
		src, _ := runnableSource()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		src.informer.RunWithContext(ctx) // returns at once: the context is done
		opts.Sources = []HPASource{src}
		_, err := New(opts)
		if err == nil || !strings.HasPrefix(err.Error(), "registering event handlers for fake HPAs: ") {
			t.Errorf("New error = %v, want the handler registration to fail", err)
		}
	})
}
