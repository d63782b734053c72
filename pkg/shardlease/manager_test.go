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
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func heldShards(m member) []int { return slices.Sorted(mapsKeys(m.held)) }

func mapsKeys(held map[int]time.Time) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range held {
			if !yield(k) {
				return
			}
		}
	}
}

// assertPartition checks that the members' held shards are disjoint, cover
// 0..shards-1, and that each holds floor or ceil of its fair share.
func assertPartition(t *testing.T, shards int, members ...member) {
	t.Helper()
	var all []int
	for _, m := range members {
		held := heldShards(m)
		if n, fair := len(held), shards/len(members); n != fair && n != fair+1 {
			t.Errorf("%s holds %d shards %v, want %d or %d", m.o.Identity, n, held, fair, fair+1)
		}
		all = append(all, held...)
	}
	slices.Sort(all)
	want := make([]int, shards)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(all, want) {
		t.Errorf("held shards together are %v, want each of 0..%d once", all, shards-1)
	}
}

func TestReplicasShareTheShardsFairly(t *testing.T) {
	f := newFleet(t)
	a, b, c := f.member("a", 16), f.member("b", 16), f.member("c", 16)
	f.rounds(4, a, b, c)
	assertPartition(t, 16, a, b, c)
	for _, m := range []member{a, b, c} {
		f.work.waitWorking(t, m.o.Identity, heldShards(m))
		for _, i := range heldShards(m) {
			if got := ptr.Deref(f.lease(m.o.shardLease(i)).Spec.HolderIdentity, ""); got != m.o.Identity {
				t.Errorf("lease of shard %d names %q, want %q", i, got, m.o.Identity)
			}
		}
	}
	f.work.noOverlaps(t)
}

// TestReplicasStartedTogetherNeverHoldMoreThanAShare pins the start-up
// delay: the first replica to list sees no peer, and without waiting a round
// after registering it would take every shard (and build the informers of
// all of them) before handing most back.
func TestReplicasStartedTogetherNeverHoldMoreThanAShare(t *testing.T) {
	f := newFleet(t)
	members := []member{f.member("a", 16), f.member("b", 16), f.member("c", 16)}
	for range 4 {
		for _, m := range members {
			m.round(f.ctx)
			if held := heldShards(m); len(held) > 6 {
				t.Fatalf("%s holds %v, more than its share of 16 among 3", m.o.Identity, held)
			}
		}
		f.step(testRetry)
	}
	assertPartition(t, 16, members...)
}

func TestAJoiningReplicaGetsShardsOnlyAfterTheOwnerStoppedThem(t *testing.T) {
	f := newFleet(t)
	a := f.member("a", 8)
	f.rounds(2, a)
	f.work.waitWorking(t, "a", []int{0, 1, 2, 3, 4, 5, 6, 7})

	var releasedWhileWorked []string
	f.client.PrependReactor("update", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if lease.Spec.HolderIdentity == nil && lease.Labels[roleLabel] == roleShard {
			for _, i := range f.work.working("a") {
				if a.o.shardLease(i) == lease.Name {
					releasedWhileWorked = append(releasedWhileWorked, lease.Name)
				}
			}
		}
		return false, nil, nil
	})
	b := f.member("b", 8)
	f.rounds(3, a, b)
	assertPartition(t, 8, a, b)
	if len(releasedWhileWorked) > 0 {
		t.Errorf("released %v while still working them", releasedWhileWorked)
	}
	f.work.waitWorking(t, "b", heldShards(b))
	f.work.noOverlaps(t)
}

func TestAReplicaCutOffStopsBeforeAnotherTakesItsShards(t *testing.T) {
	f := newFleet(t)
	a, b := f.member("a", 4), f.member("b", 4)
	f.rounds(3, a, b)
	assertPartition(t, 4, a, b)
	lost := heldShards(a)
	f.work.waitWorking(t, "a", lost)
	lastRenewal := a.held[lost[0]]

	a.cut.Store(true)
	takenOver := time.Time{}
	for f.clock.Since(lastRenewal) < testDuration+3*testRetry {
		f.step(time.Second)
		a.round(f.ctx)
		if !f.clock.Now().Before(lastRenewal.Add(testDeadline)) {
			// The fence fired: the Work was told to stop.
			f.work.waitWorking(t, "a", nil)
		}
		b.round(f.ctx)
		held := heldShards(b)
		if slices.Contains(held, lost[0]) && takenOver.IsZero() {
			takenOver = f.clock.Now()
		}
	}
	switch since := takenOver.Sub(lastRenewal); {
	case takenOver.IsZero():
		t.Fatalf("b never took over %v", lost)
	case since < testDuration:
		t.Errorf("b took over %v after %v, before the lease duration %v", lost, since, testDuration)
	case since > testDuration+2*testRetry:
		t.Errorf("b took over %v after %v, later than the lease duration and one round", lost, since)
	}
	if got := heldShards(b); len(got) != 4 {
		t.Errorf("b holds %v, want every shard", got)
	}

	// Back on the network, a has nothing and gets its share again through b.
	a.cut.Store(false)
	f.rounds(3, a, b)
	assertPartition(t, 4, a, b)
	f.work.waitWorking(t, "a", heldShards(a))
	f.work.noOverlaps(t)
}

func TestAReplicaWithAnotherShardCountWaits(t *testing.T) {
	f := newFleet(t)
	old := f.member("old", 16)
	f.rounds(1, old)
	next := f.member("next", 8)
	f.rounds(3, old, next)
	if got := heldShards(next); len(got) != 0 {
		t.Errorf("a replica with 8 shards acquired %v beside a live one with 16", got)
	}
	if got := heldShards(old); len(got) != 16 {
		t.Errorf("the replica with 16 shards holds %v, want all it had", got)
	}

	old.leave(f.ctx)
	f.work.waitWorking(t, "old", nil)
	f.rounds(1, next)
	if got := heldShards(next); len(got) != 8 {
		t.Errorf("after the other count left, the replica holds %v, want all 8", got)
	}
	f.work.noOverlaps(t)
}

func TestLeavingReleasesEveryShardAndTheMemberLease(t *testing.T) {
	f := newFleet(t)
	a, b := f.member("a", 4), f.member("b", 4)
	f.rounds(3, a, b)
	given := heldShards(a)
	a.leave(f.ctx)
	f.work.waitWorking(t, "a", nil)
	for _, i := range given {
		if holder := f.lease(a.o.shardLease(i)).Spec.HolderIdentity; holder != nil {
			t.Errorf("shard %d still names %q after a left", i, *holder)
		}
	}
	if _, err := f.client.CoordinationV1().Leases(testNamespace).Get(f.ctx, a.o.memberLease(), metav1.GetOptions{}); err == nil {
		t.Errorf("member lease %s is still there", a.o.memberLease())
	}
	// No waiting for expiry: b takes them on its next round.
	f.rounds(1, b)
	if got := heldShards(b); len(got) != 4 {
		t.Errorf("b holds %v right after a left, want every shard", got)
	}
	f.work.noOverlaps(t)
}

func TestOnlyTheFirstOfTwoRacingWritesWins(t *testing.T) {
	f := newFleet(t)
	a, b := f.member("a", 2), f.member("b", 2)
	now := f.clock.Now()
	for _, m := range []member{a, b} {
		m.list(f.ctx)
	}
	a.acquire(f.ctx, 0, now)
	b.acquire(f.ctx, 0, now)
	if !a.holds(0) || b.holds(0) {
		t.Errorf("creating: a holds shard 0 = %v, b = %v; want only a", a.holds(0), b.holds(0))
	}

	a.held = map[int]time.Time{}
	a.release(f.ctx, 0)
	for _, m := range []member{a, b} {
		m.list(f.ctx)
	}
	b.acquire(f.ctx, 0, now)
	a.acquire(f.ctx, 0, now)
	if a.holds(0) || !b.holds(0) {
		t.Errorf("updating: a holds shard 0 = %v, b = %v; want only b", a.holds(0), b.holds(0))
	}
}

func TestRunEndsWhenTheWorkStopsOnItsOwn(t *testing.T) {
	f := newFleet(t)
	broken := errors.New("the informers could not start")
	m, err := New(Options{
		Client: f.client.CoordinationV1(), Namespace: testNamespace, Group: "hpa", Identity: "a", MemberSuffix: "a",
		Shards: 2, LeaseDuration: testDuration, RenewDeadline: testDeadline, RetryPeriod: testRetry, Clock: f.clock,
		Work: func(context.Context, int) error { return broken },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	go f.tick(ctx)
	if err := m.Run(ctx); !errors.Is(err, broken) {
		t.Errorf("Run returned %v, want the Work's error", err)
	}
}

func TestSightingHolder(t *testing.T) {
	seen := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	lease := func(holder string, seconds int32) *coordinationv1.Lease {
		l := &coordinationv1.Lease{}
		if holder != "" {
			l.Spec.HolderIdentity = &holder
		}
		if seconds > 0 {
			l.Spec.LeaseDurationSeconds = &seconds
		}
		return l
	}
	cases := []struct {
		name  string
		lease *coordinationv1.Lease
		after time.Duration
		want  string
	}{
		{"a lease without holder is free", lease("", 15), 0, ""},
		{"a lease seen just now is held", lease("a", 15), 0, "a"},
		{"a lease is held until the duration has passed since it was seen", lease("a", 15), 14 * time.Second, "a"},
		{"a lease expires the duration after it was seen", lease("a", 15), 15 * time.Second, ""},
		{"a longer duration in the lease is honored", lease("a", 40), 30 * time.Second, "a"},
		{"a shorter duration in the lease does not shorten ours", lease("a", 1), 10 * time.Second, "a"},
		{"a lease without duration uses ours", lease("a", 0), 14 * time.Second, "a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sighting{lease: tc.lease, since: seen}
			if got := s.holder(seen.Add(tc.after), testDuration); got != tc.want {
				t.Errorf("holder = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestObserveKeepsFirstSightingOfAnUnchangedVersion(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	versioned := func(rv string) coordinationv1.Lease {
		return coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "hpa-shard-0", ResourceVersion: rv}}
	}
	v := view{}.observe([]coordinationv1.Lease{versioned("1")}, t0)
	v = v.observe([]coordinationv1.Lease{versioned("1")}, t0.Add(10*time.Second))
	if got := v["hpa-shard-0"].since; !got.Equal(t0) {
		t.Errorf("unchanged version: since = %v, want the first sighting %v", got, t0)
	}
	v = v.observe([]coordinationv1.Lease{versioned("2")}, t0.Add(12*time.Second))
	if got := v["hpa-shard-0"].since; !got.Equal(t0.Add(12 * time.Second)) {
		t.Errorf("renewed version: since = %v, want when it was seen", got)
	}
	if v = v.observe(nil, t0.Add(14*time.Second)); len(v) != 0 {
		t.Errorf("a deleted lease stays in the view: %v", v)
	}
}

func TestNewRejectsOptions(t *testing.T) {
	valid := func() Options {
		return Options{
			Client: newFleet(t).client.CoordinationV1(), Namespace: testNamespace, Group: "hpa", Identity: "a",
			MemberSuffix: "a", Shards: 16, LeaseDuration: testDuration, RenewDeadline: testDeadline, RetryPeriod: testRetry,
			Work: func(context.Context, int) error { return nil },
		}
	}
	cases := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"no identity", func(o *Options) { o.Identity = "" }, "identity"},
		{"no shards", func(o *Options) { o.Shards = 0 }, "shards"},
		{"no work", func(o *Options) { o.Work = nil }, "work"},
		{"a group that makes invalid lease names", func(o *Options) { o.Group = "HPA_Group" }, "lease name"},
		{"a renew deadline as long as the lease", func(o *Options) { o.RenewDeadline = testDuration }, "renew deadline"},
		{"a retry period as long as the renew deadline", func(o *Options) { o.RetryPeriod = testDeadline }, "retry period"},
	}
	if _, err := New(valid()); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := valid()
			tc.change(&o)
			_, err := New(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error about %s", err, tc.want)
			}
		})
	}
}

func TestTheFenceDoesNotWaitForAStuckRound(t *testing.T) {
	f := newFleet(t)
	a := f.member("a", 2)
	f.rounds(2, a)
	f.work.waitWorking(t, "a", []int{0, 1})

	f.stuckRound(t, a)
}

// stuckRound has a round of m wait on the API server while its renewal
// deadline passes: m's Work must stop all the same (the fence's timer).
func (f *fleet) stuckRound(t *testing.T, m member) {
	t.Helper()
	m.hang.Store(true)
	ctx, cancel := context.WithCancel(f.ctx)
	stuck := make(chan struct{})
	go func() {
		defer close(stuck)
		m.round(ctx)
	}()
	f.step(testDeadline)
	f.work.waitWorking(t, m.o.Identity, nil)
	cancel()
	<-stuck
}

// TestRunEndsQuietlyWhenStopped pins that a Work ending because the
// replica stops is no failure: ctx's end reaches the Work while a round is
// still under way, which then finds the Work ended.
func TestRunEndsQuietlyWhenStopped(t *testing.T) {
	f := newFleet(t)
	m := f.member("a", 2)
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	f.tick(ctx)
	f.work.waitWorking(t, "a", []int{0, 1})

	// The next round hangs on the API server until ctx ends, and goes on
	// only once the Work has ended too, with the API server back.
	hold := func() {
		f.work.waitWorking(t, "a", nil)
		m.hang.Store(false)
	}
	m.hold.Store(&hold)
	m.hang.Store(true)
	f.step(testRetry)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v after its context ended, want nil", err)
	}
}

func TestShardIndex(t *testing.T) {
	m := newFleet(t).member("a", 16)
	cases := []struct {
		name string
		want int
		ok   bool
	}{
		{"hpa-shard-0", 0, true},
		{"hpa-shard-15", 15, true},
		{"hpa-shard-16", 0, false},
		{"hpa-shard-07", 0, false},
		{"hpa-shard--1", 0, false},
		{"hpa-shard-", 0, false},
		{"hpa-replica-a", 0, false},
		{"other-shard-1", 0, false},
	}
	for _, tc := range cases {
		if got, ok := m.o.shardIndex(tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("shardIndex(%q) = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestShardsAreWeighedByTheHPAsTheirHoldersCount pins the counts' path:
// the holder writes each held shard's HPAs in its Lease, keeps the last
// count while its Work does not know, and a joining replica plans from the
// counts, taking one heavy shard rather than half the shards.
func TestShardsAreWeighedByTheHPAsTheirHoldersCount(t *testing.T) {
	f := newFleet(t)
	a := f.member("a", 4)
	counts, known := map[int]int{0: 40, 1: 40}, true
	a.o.Count = func(i int) (int, bool) { return counts[i], known }
	f.rounds(3, a)
	wantCounts := func(want ...string) {
		t.Helper()
		for i, w := range want {
			if got := f.lease(a.o.shardLease(i)).Annotations[hpasAnnotation]; got != w {
				t.Errorf("shard %d's lease counts %q HPAs, want %q", i, got, w)
			}
		}
	}
	wantCounts("40", "40", "0", "0")

	known = false
	f.rounds(1, a)
	wantCounts("40", "40", "0", "0")
	known = true

	b := f.member("b", 4)
	f.rounds(4, a, b)
	if got := heldShards(b); len(got) != 1 || got[0] > 1 {
		t.Errorf("b holds %v, want one of the two shards of 40 HPAs", got)
	}
	if got := heldShards(a); len(got) != 3 {
		t.Errorf("a holds %v, want the other three", got)
	}
	f.work.waitWorking(t, "b", heldShards(b))
	f.work.noOverlaps(t)
}

func TestSightingHPAs(t *testing.T) {
	cases := []struct {
		name       string
		annotation string
		want       int
		known      bool
	}{
		{"a count is read", "42", 42, true},
		{"no annotation is no count", "", 0, false},
		{"a negative count is no count", "-3", 0, false},
		{"something else than a count is no count", "many", 0, false},
		{"a count beyond any cluster's is bounded", "9223372036854775807", maxHPAs, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := &coordinationv1.Lease{}
			if tc.annotation != "" {
				l.Annotations = map[string]string{hpasAnnotation: tc.annotation}
			}
			got, ok := (sighting{lease: l}).hpas()
			if got != tc.want || ok != tc.known {
				t.Errorf("hpas() = %d, %v; want %d, %v", got, ok, tc.want, tc.known)
			}
		})
	}
}

// TestWeighedSharesSettle pins that replicas planning from HPA counts
// never hand a shard back, from a cold start and when a replica joins: a
// shard released toward its new owner is planned as still its releaser's
// until taken (else, free, it could be planned back to the releaser, now
// lighter), and weights count only once every shard has one (else shards
// would move for the first counts and back for the rest).
func TestWeighedSharesSettle(t *testing.T) {
	f := newFleet(t)
	// The bench's 50 tenants of 100 HPAs, t00-hpa-bench … t49-hpa-bench,
	// fall into the 16 shards so.
	hpas := []int{300, 400, 500, 300, 100, 300, 0, 200, 300, 200, 200, 500, 700, 200, 200, 600}
	counting := func(m member) member {
		// A new run knows its count a round after it started, as
		// informers sync after the work starts.
		seen := map[int]bool{}
		m.o.Count = func(i int) (int, bool) {
			for s := range seen {
				if !m.holds(s) {
					delete(seen, s)
				}
			}
			if !seen[i] {
				seen[i] = true
				return 0, false
			}
			return hpas[i], true
		}
		return m
	}
	members := []member{counting(f.member("a", 16)), counting(f.member("b", 16))}
	f.roundsNoGoingBack(t, 10, members...)
	members = append(members, counting(f.member("c", 16)))
	f.roundsNoGoingBack(t, 12, members...)
	// Runs start asynchronously: the count starts once each has.
	for _, m := range members {
		f.work.waitWorking(t, m.o.Identity, heldShards(m))
	}
	starts := f.work.started()
	f.rounds(12, members...)
	if n := f.work.started() - starts; n != 0 {
		t.Errorf("the replicas restarted their work %d times after 12 rounds; the shares should have settled", n)
	}
	assertCovered(t, 16, members...)
	f.work.noOverlaps(t)
}

// roundsNoGoingBack runs n rounds and fails for every shard that comes
// back to a replica it left during them.
func (f *fleet) roundsNoGoingBack(t *testing.T, n int, members ...member) {
	t.Helper()
	left := map[int]string{}
	for range n {
		before := map[int]string{}
		for _, m := range members {
			for _, i := range heldShards(m) {
				before[i] = m.o.Identity
			}
		}
		f.rounds(1, members...)
		for _, m := range members {
			for _, i := range heldShards(m) {
				if left[i] == m.o.Identity {
					t.Errorf("shard %d went back to %s, which had handed it on", i, m.o.Identity)
				}
			}
		}
		for i, was := range before {
			if !slices.Contains(heldShards(memberNamed(members, was)), i) {
				left[i] = was
			}
		}
	}
}

func memberNamed(members []member, id string) member {
	for _, m := range members {
		if m.o.Identity == id {
			return m
		}
	}
	panic("no member " + id)
}

// assertCovered checks that the members' held shards are disjoint and cover
// 0..shards-1.
func assertCovered(t *testing.T, shards int, members ...member) {
	t.Helper()
	seen := map[int]string{}
	for _, m := range members {
		for _, i := range heldShards(m) {
			if other, ok := seen[i]; ok {
				t.Errorf("shard %d held by %s and %s", i, other, m.o.Identity)
			}
			seen[i] = m.o.Identity
		}
	}
	if len(seen) != shards {
		t.Errorf("%d shards held, want %d", len(seen), shards)
	}
}
