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
	"strconv"
	"testing"
	"time"
)

var (
	tenant     = Flows{"namespace/tenant", "source/external.metrics.k8s.io"}
	other      = Flows{"namespace/other", "source/metrics.k8s.io"}
	sameSource = Flows{"namespace/other", "source/external.metrics.k8s.io"}
)

// TestAdmit pins who gets a worker: a slow HPA always starts (in the lane,
// on no worker), a flow with no slow pass is never bounded, and a hot flow
// (a namespace or a metrics source with a pass in the lane, or one that
// ended less than a period ago) holds at most half of the workers when
// that would leave none free, and borrows the others.
func TestAdmit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		// inLane are the flows of passes already in the lane.
		inLane []Flows
		// starting are the passes that ask for a worker, in order, none
		// of them slow.
		starting []Flows
		admits   []bool
	}{
		{name: "flows with no slow pass are never bounded", workers: 2,
			starting: []Flows{tenant, tenant, tenant}, admits: []bool{true, true, true}},
		{name: "a hot namespace borrows idle workers but leaves one free", workers: 4, inLane: []Flows{tenant},
			starting: []Flows{tenant, tenant, tenant, tenant, other}, admits: []bool{true, true, true, false, true}},
		{name: "a hot namespace within its share takes the last worker", workers: 4, inLane: []Flows{tenant},
			starting: []Flows{other, other, other, tenant}, admits: []bool{true, true, true, true}},
		{name: "a hot namespace over its share leaves the last worker to others", workers: 4, inLane: []Flows{tenant},
			starting: []Flows{tenant, tenant, other, tenant, other}, admits: []bool{true, true, true, false, true}},
		{name: "a hot metrics source is bounded whatever the namespace", workers: 4, inLane: []Flows{tenant},
			starting: []Flows{sameSource, sameSource, sameSource, sameSource, other}, admits: []bool{true, true, true, false, true}},
		{name: "one worker still lets a hot flow in", workers: 1, inLane: []Flows{tenant},
			starting: []Flows{tenant, tenant}, admits: []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLane[string](tc.workers)
			for _, f := range tc.inLane {
				if _, ok := l.Admit("slow", f, true, period, t0); !ok {
					t.Fatal("a slow HPA was kept out")
				}
			}
			for i, f := range tc.starting {
				if _, got := l.Admit(strconv.Itoa(i), f, false, period, t0); got != tc.admits[i] {
					t.Errorf("pass %d of %v admitted = %v, want %v", i, f, got, tc.admits[i])
				}
			}
		})
	}

	t.Run("slow HPAs start however many are in the lane", func(t *testing.T) {
		l := NewLane[string](1)
		for i := range 50 {
			if _, ok := l.Admit(strconv.Itoa(i), tenant, true, period, t0); !ok {
				t.Fatalf("slow pass %d kept out", i)
			}
		}
	})

	t.Run("a flow cools a period after its last slow pass ended", func(t *testing.T) {
		l := NewLane[string](2)
		slow, _ := l.Admit("slow", tenant, true, period, t0)
		first, ok := l.Admit("a", tenant, false, period, t0)
		if !ok {
			t.Fatal("first pass of a hot flow kept out")
		}
		if _, ok := l.Admit("b", tenant, false, period, t0); ok {
			t.Fatal("a hot flow took the last of two workers")
		}
		slow.Release(t0)
		if _, ok := l.Admit("b", tenant, false, period, t0.Add(period-time.Millisecond)); ok {
			t.Fatal("a flow whose slow pass ended less than a period ago took the last worker")
		}
		if _, ok := l.Admit("b", tenant, false, period, t0.Add(period)); !ok {
			t.Fatal("a flow whose slow pass ended a period ago was still bounded")
		}
		if len(l.waiting) != 0 {
			t.Errorf("waiting = %v after the HPA got its pass, want none", l.waiting)
		}
		first.Release(t0.Add(period))
	})

	t.Run("an HPA turned away waits, once, for the next worker that frees", func(t *testing.T) {
		l := NewLane[string](2)
		slow, _ := l.Admit("slow", tenant, true, period, t0)
		defer slow.Release(t0)
		onWorker, _ := l.Admit("a", tenant, false, period, t0)
		for _, k := range []string{"b", "c", "b"} {
			if _, ok := l.Admit(k, tenant, false, period, t0); ok {
				t.Fatalf("%v took the last worker", k)
			}
		}
		if got := onWorker.Release(t0); got != (Freed[string]{Key: "b", OK: true}) {
			t.Errorf("freed worker is for %+v, want the HPA that waited longest, b", got)
		}
		if !slices.Equal(l.waiting, []string{"c"}) {
			t.Errorf("still waiting = %v, want c", l.waiting)
		}
		// c gets its pass another way (its slot): a worker freeing later
		// must not give it a second.
		if _, ok := l.Admit("c", other, false, period, t0); !ok {
			t.Fatal("c kept out of a worker of a cold flow")
		}
		moving, _ := l.Admit("b", other, false, period, t0)
		if moved, freed := moving.ToLane(); !moved || freed.OK {
			t.Errorf("ToLane = %v, %+v; want moved, and no HPA woken for one that got its pass", moved, freed)
		}
	})

	t.Run("a pass moved to the lane frees its worker and heats its flows", func(t *testing.T) {
		l := NewLane[string](2)
		h, _ := l.Admit("a", tenant, false, period, t0)
		if h.hot(t0) {
			t.Error("a flow with no pass in the lane is hot")
		}
		h.ToLane()
		if got := l.onWork[tenant[0]]; got != 0 || l.busy != 0 {
			t.Errorf("workers held by the tenant = %d, busy = %d, want 0 and 0", got, l.busy)
		}
		if got := l.inLane[tenant[1]]; got != 1 {
			t.Errorf("passes of the source in the lane = %d, want 1", got)
		}
		if moved, _ := h.ToLane(); moved {
			t.Error("a pass in the lane moved again")
		}
		h.Release(t0)
		h.Release(t0)
		if len(l.onWork) != 0 || len(l.inLane) != 0 || l.busy != 0 {
			t.Errorf("after release: on workers %v, in lane %v, busy %d, want none", l.onWork, l.inLane, l.busy)
		}
		if !h.hot(t0) {
			t.Error("a flow whose pass in the lane just ended is not hot")
		}
		if moved, _ := h.ToLane(); moved {
			t.Error("a pass that ended moved to the lane")
		}
	})
}

// TestKeep pins how long a worker holds a pass: a quarter of its period
// while its flows are cold, HotShare once one of them is hot, whether it
// was hot when the pass started or heated while it ran, checked every
// HotShare.
func TestKeep(t *testing.T) {
	hot, slow := HotShare(period), SlowPass(period)
	for _, tc := range []struct {
		name string
		// heated: a pass of the flow is in the lane.
		heated   bool
		held     time.Duration
		wantMore time.Duration
		wantKeep bool
	}{
		{name: "a pass that just started is checked after HotShare", held: 0, wantMore: hot, wantKeep: true},
		{name: "a pass of a hot flow is checked after HotShare too", heated: true, held: 0, wantMore: hot, wantKeep: true},
		{name: "a pass of a cold flow is checked again after HotShare", held: hot, wantMore: hot, wantKeep: true},
		{name: "a pass of a cold flow is held no longer than a quarter period", held: slow - hot/2, wantMore: hot / 2, wantKeep: true},
		{name: "a pass of a cold flow leaves at a quarter period", held: slow, wantKeep: false},
		{name: "a pass of a hot flow leaves after HotShare", heated: true, held: hot, wantKeep: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLane[string](4)
			h, _ := l.Admit("a", tenant, false, period, t0)
			if tc.heated {
				l.Admit("slow", Flows{tenant[0]}, true, period, t0)
			}
			more, keep := h.Keep(tc.held, t0.Add(tc.held))
			if more != tc.wantMore || keep != tc.wantKeep {
				t.Errorf("Keep(%v) = %v, %v; want %v, %v", tc.held, more, keep, tc.wantMore, tc.wantKeep)
			}
		})
	}
}

// TestHoldSpeed pins which passes count as slow: one moved off its worker,
// and one that started in the lane and took longer than a pass of a hot
// flow may hold a worker; a pass that ended on its worker is fast, however
// long it took.
func TestHoldSpeed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inLane bool
		moved  bool
		took   time.Duration
		want   Speed
	}{
		{name: "a pass that ended on its worker is fast", took: SlowPass(period), want: PassedFast},
		{name: "a pass moved off its worker is slow", moved: true, took: HotShare(period), want: PassedSlow},
		{name: "a pass in the lane within a hot flow's share is fast", inLane: true, took: HotShare(period), want: PassedFast},
		{name: "a pass in the lane past a hot flow's share is slow", inLane: true, took: HotShare(period) + time.Millisecond, want: PassedSlow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hold, _ := NewLane[string](2).Admit("a", tenant, tc.inLane, period, t0)
			if tc.moved {
				hold.ToLane()
			}
			if got := hold.Speed(tc.took); got != tc.want {
				t.Errorf("speed = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStanding pins when an HPA is in the lane: from its first slow pass
// (or a pass that overran, which counts as one before it ends), until
// FastPassesToLeave fast passes in a row.
func TestStanding(t *testing.T) {
	slow, fast := PassedSlow, PassedFast
	for _, tc := range []struct {
		name   string
		passes []Speed
		want   bool
	}{
		{name: "an HPA never passed is not slow", want: false},
		{name: "fast passes are not slow", passes: []Speed{fast, fast}, want: false},
		{name: "one slow pass puts the HPA in the lane", passes: []Speed{fast, slow}, want: true},
		{name: "one fast pass does not take it out", passes: []Speed{slow, fast}, want: true},
		{name: "two fast passes do not take it out", passes: []Speed{slow, fast, fast}, want: true},
		{name: "three fast passes in a row take it out", passes: []Speed{slow, fast, fast, fast}, want: false},
		{name: "a turn without a pass neither counts nor resets", passes: []Speed{slow, fast, NotPassed, fast, NotPassed, fast}, want: false},
		{name: "a flapping provider keeps it in", passes: []Speed{slow, fast, fast, slow, fast, fast}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st Standing
			for _, s := range tc.passes {
				st = st.After(s)
			}
			if st.Slow != tc.want {
				t.Errorf("slow = %v, want %v", st.Slow, tc.want)
			}
		})
	}
}
