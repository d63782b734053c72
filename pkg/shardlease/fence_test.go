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
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestCheck(t *testing.T) {
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		// deadline is after start by this much; nil leaves it unset.
		deadline *time.Duration
		closed   bool
		// elapsed moves the clock, and only the clock: no timer runs, as
		// in a process resumed after a stop.
		elapsed time.Duration
		outside bool
		fenced  bool
	}{
		{name: "work of no run is never fenced", outside: true},
		{name: "work before its renewal deadline may write", deadline: ptrTo(10 * time.Second), elapsed: 9 * time.Second},
		{name: "work at its renewal deadline may not write, timer or not", deadline: ptrTo(10 * time.Second), elapsed: 10 * time.Second, fenced: true},
		{name: "work resumed long past its deadline may not write", deadline: ptrTo(10 * time.Second), elapsed: time.Minute, fenced: true},
		{name: "work of a stopped run may not write before its deadline", deadline: ptrTo(10 * time.Second), closed: true, fenced: true},
		{name: "work of a run without a renewal may not write", fenced: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(start)
			ctx := context.Background()
			if !tc.outside {
				f := &fence{clock: clk}
				if tc.deadline != nil {
					f.set(start.Add(*tc.deadline))
				}
				if tc.closed {
					f.close()
				}
				ctx = context.WithValue(ctx, fenceKey{}, f)
			}
			clk.SetTime(start.Add(tc.elapsed))
			err := Check(ctx)
			if got := errors.Is(err, ErrFenced); got != tc.fenced || (err != nil) != tc.fenced {
				t.Errorf("Check = %v, want fenced %v", err, tc.fenced)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// ctxLog keeps the context of each run of the Work, by shard, so that a
// test asks the fence of a run after it was stopped.
type ctxLog struct {
	mu   sync.Mutex
	runs map[int][]context.Context
}

func (l *ctxLog) work(ctx context.Context, shard int) error {
	l.mu.Lock()
	if l.runs == nil {
		l.runs = map[int][]context.Context{}
	}
	l.runs[shard] = append(l.runs[shard], ctx)
	l.mu.Unlock()
	<-ctx.Done()
	return nil
}

// first waits for the first run of shard to have started and returns its
// context.
func (l *ctxLog) first(t *testing.T, shard int) context.Context {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l.mu.Lock()
		runs := l.runs[shard]
		l.mu.Unlock()
		if len(runs) > 0 {
			return runs[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Work never ran on shard %d", shard)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestARunMayWriteOnlyWhileItHoldsItsShards(t *testing.T) {
	f := newFleet(t)
	runs := &ctxLog{}
	a := f.member("a", 4)
	a.o.Work = runs.work
	f.rounds(3, a)
	if got := heldShards(a); len(got) != 4 {
		t.Fatalf("a holds %v, want every shard", got)
	}
	// Started: wait until the goroutines have run the Work.
	old := map[int]context.Context{}
	for i := range 4 {
		old[i] = runs.first(t, i)
	}

	// Renewals move the deadline: well past the first one, a may write.
	f.rounds(2*int(testDeadline/testRetry), a)
	for i, ctx := range old {
		if err := Check(ctx); err != nil {
			t.Fatalf("a's run on shard %d, renewed every round, is fenced: %v", i, err)
		}
	}

	// b joins; a releases half. At each release write, the released
	// shard's run may no longer write: its writes end before the shard can
	// be another's.
	var mu sync.Mutex
	var atRelease []error
	f.client.PrependReactor("update", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if i, ok := a.o.shardIndex(lease.Name); ok && lease.Labels[roleLabel] == roleShard && lease.Spec.HolderIdentity == nil {
			mu.Lock()
			atRelease = append(atRelease, Check(old[i]))
			mu.Unlock()
		}
		return false, nil, nil
	})
	b := f.member("b", 4)
	f.rounds(4, a, b)
	assertPartition(t, 4, a, b)
	mu.Lock()
	defer mu.Unlock()
	if len(atRelease) == 0 {
		t.Fatal("a released no shard")
	}
	for _, err := range atRelease {
		if !errors.Is(err, ErrFenced) {
			t.Errorf("at a release, the released shard's run's fence said %v, want ErrFenced", err)
		}
	}
	// The shards a kept were never stopped: their first runs may write.
	for _, i := range heldShards(a) {
		if err := Check(old[i]); err != nil {
			t.Errorf("the run of shard %d, which a kept, is fenced: %v", i, err)
		}
	}
}

func TestAReplicaCutOffMayNotWriteFromItsRenewalDeadline(t *testing.T) {
	f := newFleet(t)
	runs := &ctxLog{}
	a := f.member("a", 2)
	a.o.Work = runs.work
	f.rounds(3, a)
	ctxs := []context.Context{runs.first(t, 0), runs.first(t, 1)}
	lastRenewal := f.clock.Now().Add(-testRetry)
	a.cut.Store(true)
	for f.clock.Now().Before(lastRenewal.Add(testDeadline)) {
		for i, ctx := range ctxs {
			if err := Check(ctx); err != nil {
				t.Fatalf("shard %d, %v after the last renewal, before the deadline %v: fenced: %v", i, f.clock.Since(lastRenewal), testDeadline, err)
			}
		}
		f.step(time.Second)
	}
	for i, ctx := range ctxs {
		if err := Check(ctx); !errors.Is(err, ErrFenced) {
			t.Errorf("shard %d: at the renewal deadline the fence said %v, want ErrFenced", i, err)
		}
	}
}

func TestAListedLeaseIsTimedFromWhenTheAnswerArrived(t *testing.T) {
	f := newFleet(t)
	b := f.member("b", 2)
	f.rounds(3, b)
	a := f.member("a", 2)
	// The list takes 5s to answer, as on a loaded API server.
	slow := 5 * time.Second
	f.client.PrependReactor("list", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		f.clock.Step(slow)
		return false, nil, nil
	})
	sent := f.clock.Now()
	if !a.list(f.ctx) {
		t.Fatal("the list failed")
	}
	name := a.o.shardLease(0)
	s, ok := a.view[name]
	if !ok {
		t.Fatalf("no sighting of %s", name)
	}
	if want := sent.Add(slow); !s.since.Equal(want) {
		t.Errorf("b's renewal seen since %v, want when the answer arrived (%v), not when the list was sent (%v)", s.since, want, sent)
	}
}

// TestAShardReleasedByAReplicaThatLeftIsTakenWithinALeaseDuration pins the
// bound on a released shard without an owner: while its releaser's member
// Lease is live the plans keep the shard its releaser's, so when the
// leaver's delete of that Lease fails (or its answer is lost on a loaded
// API server) the shard waits for the member Lease to expire, and no
// longer.
func TestAShardReleasedByAReplicaThatLeftIsTakenWithinALeaseDuration(t *testing.T) {
	for _, tc := range []struct {
		name         string
		deleteFails  bool
		wantRoundsAt int
		// notBefore is a round by which b must not have them yet: the
		// plans still count them as the live-looking leaver's.
		notBefore int
	}{
		{name: "member lease deleted: taken on the next round", wantRoundsAt: 1},
		{name: "member lease left behind: taken once it expires", deleteFails: true,
			wantRoundsAt: int(testDuration/testRetry) + 2, notBefore: int(testDuration/testRetry) - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet(t)
			a, b := f.member("a", 4), f.member("b", 4)
			f.rounds(3, a, b)
			given := heldShards(a)
			if tc.deleteFails {
				f.client.PrependReactor("delete", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("the answer was lost")
				})
			}
			a.leave(f.ctx)
			rounds := 0
			for len(heldShards(b)) < 4 {
				rounds++
				if rounds > tc.wantRoundsAt {
					t.Fatalf("b holds %v after %d rounds since a left (released %v), want every shard by round %d",
						heldShards(b), rounds-1, given, tc.wantRoundsAt)
				}
				f.rounds(1, b)
			}
			if rounds < tc.notBefore {
				t.Errorf("b took every shard at round %d, while a's member Lease was still live (before round %d)", rounds, tc.notBefore)
			}
			f.work.noOverlaps(t)
		})
	}
}
