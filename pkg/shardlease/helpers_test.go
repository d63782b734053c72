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

package shardlease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	typedcoordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
)

const (
	testNamespace = "kube-system"
	testDuration  = 15 * time.Second
	testDeadline  = 10 * time.Second
	testRetry     = 2 * time.Second
)

// fleet is a group of managers sharing one fake API and one fake clock; the
// test drives their rounds by hand.
type fleet struct {
	t      *testing.T
	ctx    context.Context
	client *fake.Clientset
	clock  *clocktesting.FakeClock
	work   *workLog
}

func newFleet(t *testing.T) *fleet {
	_, ctx := ktesting.NewTestContext(t)
	client := fake.NewClientset()
	versionLeases(client)
	return &fleet{
		t:      t,
		ctx:    ctx,
		client: client,
		clock:  clocktesting.NewFakeClock(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)),
		work:   newWorkLog(),
	}
}

// versionLeases gives the fake API the API server's optimistic concurrency
// for Leases: every write gets a new resourceVersion, and an update or a
// delete with a stale one is a conflict.
func versionLeases(client *fake.Clientset) {
	var version atomic.Int64
	gvr := coordinationv1.SchemeGroupVersion.WithResource("leases")
	tracker := client.Tracker()
	current := func(ns, name string) (*coordinationv1.Lease, error) {
		obj, err := tracker.Get(gvr, ns, name)
		if err != nil {
			return nil, err
		}
		return obj.(*coordinationv1.Lease), nil
	}
	client.PrependReactor("create", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		lease := action.(k8stesting.CreateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		lease.ResourceVersion = strconv.FormatInt(version.Add(1), 10)
		return true, lease, tracker.Create(gvr, lease, lease.Namespace)
	})
	client.PrependReactor("update", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		stored, err := current(lease.Namespace, lease.Name)
		if err != nil {
			return true, nil, err
		}
		if stored.ResourceVersion != lease.ResourceVersion {
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), lease.Name, errors.New("stale resourceVersion"))
		}
		lease.ResourceVersion = strconv.FormatInt(version.Add(1), 10)
		return true, lease, tracker.Update(gvr, lease, lease.Namespace)
	})
}

// member is one replica: its manager and the switches that cut it off the
// API (every call fails at once) or make the API hang (every call waits for
// its context to end).
type member struct {
	*Manager
	cut, hang *atomic.Bool
	// hold, when set, runs in a hanging List once its context has ended,
	// before it returns: a test orders events with it.
	hold *atomic.Pointer[func()]
}

func (f *fleet) member(id string, shards int) member {
	f.t.Helper()
	cut, hang, hold := &atomic.Bool{}, &atomic.Bool{}, &atomic.Pointer[func()]{}
	m, err := New(Options{
		Client:        partitionable{LeasesGetter: f.client.CoordinationV1(), cut: cut, hang: hang, hold: hold},
		Namespace:     testNamespace,
		Group:         "hpa",
		Identity:      id,
		MemberSuffix:  id,
		Shards:        shards,
		LeaseDuration: testDuration,
		RenewDeadline: testDeadline,
		RetryPeriod:   testRetry,
		Work:          f.work.work(id),
		Clock:         f.clock,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return member{Manager: m, cut: cut, hang: hang, hold: hold}
}

// rounds runs n rounds of every member, in order, the clock moving one
// retry period after each full turn.
func (f *fleet) rounds(n int, members ...member) {
	for range n {
		for _, m := range members {
			m.round(f.ctx)
		}
		f.step(testRetry)
	}
}

// tick moves the clock one retry period once Run's ticker is waiting, so
// that Run comes to its second round, the first that plans.
func (f *fleet) tick(ctx context.Context) {
	for !f.clock.HasWaiters() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Millisecond):
		}
	}
	f.step(testRetry)
}

// step moves the clock; the fence timers that fall due run at once.
func (f *fleet) step(d time.Duration) { f.clock.Step(d) }

func (f *fleet) lease(name string) *coordinationv1.Lease {
	f.t.Helper()
	l, err := f.client.CoordinationV1().Leases(testNamespace).Get(f.ctx, name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return l
}

// workLog records which replica works which shard, each run's context,
// and any moment two replicas worked the same shard.
type workLog struct {
	mu       sync.Mutex
	active   map[string][]int
	overlaps []string
	starts   int
	// ctxs is, by replica and shard, the context of its latest run.
	ctxs map[string]map[int]context.Context
	// events is the order of the runs' starts and returns ("a +1", "a -1")
	// and of whatever a test adds to it (note).
	events []string
	// fail, when set for a replica and shard, is what that run returns at
	// once.
	fail map[string]map[int]error
}

// started returns how many times any Work started.
func (w *workLog) started() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.starts
}

func newWorkLog() *workLog {
	return &workLog{active: map[string][]int{}, ctxs: map[string]map[int]context.Context{}, fail: map[string]map[int]error{}}
}

func (w *workLog) work(id string) Work {
	return func(ctx context.Context, shard int) error {
		w.begin(id, shard, ctx)
		w.mu.Lock()
		err := w.fail[id][shard]
		w.mu.Unlock()
		if err == nil {
			<-ctx.Done()
		}
		w.end(id, shard)
		return err
	}
}

// note adds an event to the log, in order with the runs' starts and ends.
func (w *workLog) note(event string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, event)
}

func (w *workLog) log() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.events)
}

// ctx returns the context of id's latest run on shard, nil if none.
func (w *workLog) ctx(id string, shard int) context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctxs[id][shard]
}

func (w *workLog) begin(id string, shard int, ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.starts++
	for other, shards := range w.active {
		if slices.Contains(shards, shard) {
			w.overlaps = append(w.overlaps, fmt.Sprintf("%s started shard %d while %s worked it", id, shard, other))
		}
	}
	w.active[id] = append(w.active[id], shard)
	slices.Sort(w.active[id])
	if w.ctxs[id] == nil {
		w.ctxs[id] = map[int]context.Context{}
	}
	w.ctxs[id][shard] = ctx
	w.events = append(w.events, fmt.Sprintf("%s +%d", id, shard))
}

func (w *workLog) end(id string, shard int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.active[id] = slices.DeleteFunc(w.active[id], func(s int) bool { return s == shard })
	if len(w.active[id]) == 0 {
		delete(w.active, id)
	}
	w.events = append(w.events, fmt.Sprintf("%s -%d", id, shard))
}

func (w *workLog) working(id string) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.active[id])
}

// waitWorking waits for the Work goroutines of id to have started on
// exactly want (nil: to have stopped); a run starts asynchronously.
func (w *workLog) waitWorking(t *testing.T, id string, want []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(w.working(id), want) {
		if time.Now().After(deadline) {
			t.Fatalf("%s works %v, want %v", id, w.working(id), want)
		}
		time.Sleep(time.Millisecond)
	}
}

func (w *workLog) noOverlaps(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.overlaps {
		t.Error(o)
	}
}

// partitionable cuts a replica off the API server while cut is set, and
// makes its calls hang while hang is.
type partitionable struct {
	typedcoordinationv1.LeasesGetter
	cut, hang *atomic.Bool
	hold      *atomic.Pointer[func()]
}

func (p partitionable) Leases(namespace string) typedcoordinationv1.LeaseInterface {
	switch {
	case p.cut.Load():
		return unreachable{}
	case p.hang.Load():
		return hanging{hold: p.hold.Load()}
	}
	return p.LeasesGetter.Leases(namespace)
}

// hanging answers no call before its context ends.
type hanging struct {
	typedcoordinationv1.LeaseInterface
	hold *func()
}

func (h hanging) List(ctx context.Context, _ metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	<-ctx.Done()
	if h.hold != nil {
		(*h.hold)()
	}
	return nil, ctx.Err()
}

func (hanging) Create(ctx context.Context, _ *coordinationv1.Lease, _ metav1.CreateOptions) (*coordinationv1.Lease, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hanging) Update(ctx context.Context, _ *coordinationv1.Lease, _ metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hanging) Delete(ctx context.Context, _ string, _ metav1.DeleteOptions) error {
	<-ctx.Done()
	return ctx.Err()
}

var errUnreachable = errors.New("the API server cannot be reached")

// unreachable fails every call a Manager makes.
type unreachable struct {
	typedcoordinationv1.LeaseInterface
}

func (unreachable) List(context.Context, metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	return nil, errUnreachable
}

func (unreachable) Create(context.Context, *coordinationv1.Lease, metav1.CreateOptions) (*coordinationv1.Lease, error) {
	return nil, errUnreachable
}

func (unreachable) Update(context.Context, *coordinationv1.Lease, metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	return nil, errUnreachable
}

func (unreachable) Delete(context.Context, string, metav1.DeleteOptions) error { return errUnreachable }
