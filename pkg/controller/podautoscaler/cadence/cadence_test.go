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
	"fmt"
	"testing"
	"time"
)

// t0 is a whole multiple of every period below since the epoch: an HPA
// whose offset is o has a slot at t0+o.
var t0 = time.Unix(3600*1000, 0)

const period = 15 * time.Second

// slotKeyAt finds a slot key whose offset in period is off.
func slotKeyAt(t *testing.T, off, period time.Duration) string {
	t.Helper()
	for i := range 10000 {
		if k := fmt.Sprintf("ns/hpa-%d", i); Offset(k, period) == off {
			return k
		}
	}
	t.Fatalf("no slot key with offset %v", off)
	return ""
}

// TestAfterPass is the matrix of the rules after a pass: the gate
// (configurable periods) x spreading x a paced pass x a slow pass (one in
// the lane, that the fetch budget ended) x its ending (passed, panicked,
// its cache stale, its HPA gone) x a fallback deadline, each row with the
// time the HPA is due again. Who of the due HPAs gets a worker is
// TestAdmit's.
func TestAfterPass(t *testing.T) {
	slot4 := slotKeyAt(t, 4*time.Second, period)
	hpa := func(p time.Duration) HPA { return HPA{Period: p, SlotKey: slot4} }
	cases := []struct {
		name  string
		rules Rules
		pass  Pass
		// now is when the pass ended, from t0.
		now  time.Duration
		want Due
	}{
		// Unspread, gate off: upstream's one global period from the end.
		{name: "gate off, unspread: a pass is followed a global period after it ended, as a retry",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Start: t0}, now: 2 * time.Second,
			want: Due{At: t0.Add(17 * time.Second), Retry: true}},
		{name: "gate off, unspread: a paced pass is followed as any other",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Start: t0, Paced: true}, now: time.Second,
			want: Due{At: t0.Add(16 * time.Second), Retry: true}},
		// Unspread, gate on: the HPA's own period from the end.
		{name: "gate on, unspread: an HPA of 60s is followed 60s after its pass ended",
			rules: Rules{Period: period, ConfigurablePeriod: true}, pass: Pass{HPA: hpa(time.Minute), Start: t0}, now: time.Second,
			want: Due{At: t0.Add(61 * time.Second)}},
		// Spread: the slot, or a period after the start when paced.
		{name: "spread: a pass on its slot is followed on the next slot, a period later",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(4 * time.Second)}, now: 5 * time.Second,
			want: Due{At: t0.Add(19 * time.Second)}},
		{name: "spread: a pass that started late still lands on the next slot",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(9 * time.Second)}, now: 10 * time.Second,
			want: Due{At: t0.Add(19 * time.Second)}},
		{name: "spread: a pass that ran past its next slot is due at once",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(4 * time.Second)}, now: 44 * time.Second,
			want: Due{At: t0.Add(19 * time.Second)}},
		// Slow: a pass in the lane costs its HPA neither its period nor,
		// spread, its slot or its ramp.
		{name: "slow, gate off, unspread: a pass the fetch budget ended is followed a global period after it ended",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Start: t0}, now: 40 * time.Second,
			want: Due{At: t0.Add(55 * time.Second), Retry: true}},
		{name: "slow, gate on, unspread: an HPA of 60s is followed 60s after its slow pass ended",
			rules: Rules{Period: period, ConfigurablePeriod: true}, pass: Pass{HPA: hpa(time.Minute), Start: t0}, now: 30 * time.Second,
			want: Due{At: t0.Add(90 * time.Second)}},
		{name: "slow, spread: a paced pass that ran past a period is due at once, its ramp kept",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(4 * time.Second), Paced: true}, now: 40 * time.Second,
			want: Due{At: t0.Add(19 * time.Second)}},
		{name: "spread: a paced pass is followed a period after its start, off the slot",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(8 * time.Second), Paced: true}, now: 14 * time.Second,
			want: Due{At: t0.Add(23 * time.Second)}},
		{name: "spread, gate on: an HPA of 3s lands on its slot of a 3s grid",
			rules: Rules{Period: period, Spread: true, ConfigurablePeriod: true}, pass: Pass{HPA: HPA{Period: 3 * time.Second, SlotKey: slotKeyAt(t, time.Second, 3*time.Second)}, Start: t0.Add(time.Second)}, now: 2 * time.Second,
			want: Due{At: t0.Add(4 * time.Second)}},
		{name: "spread: a pass that did not get as far as the reconcile waits for the slot after its end",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period)}, now: 5 * time.Second,
			want: Due{At: t0.Add(19 * time.Second)}},
		// A fallback deadline.
		{name: "unspread: a deadline 5s away wakes the HPA before its period",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Start: t0, WakeAt: t0.Add(5 * time.Second)},
			want: Due{At: t0.Add(5 * time.Second)}},
		{name: "unspread: a deadline after the period is left to it",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Start: t0, WakeAt: t0.Add(20 * time.Second)},
			want: Due{At: t0.Add(period), Retry: true}},
		{name: "unspread: a deadline within a second before the period is left to it",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Start: t0, WakeAt: t0.Add(14*time.Second + 200*time.Millisecond)},
			want: Due{At: t0.Add(period), Retry: true}},
		{name: "unspread: a deadline just over a second before the period wakes the HPA",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Start: t0, WakeAt: t0.Add(13*time.Second + 900*time.Millisecond)},
			want: Due{At: t0.Add(13*time.Second + 900*time.Millisecond)}},
		{name: "gate on: a deadline 30s away wakes an HPA of 60s",
			rules: Rules{Period: period, ConfigurablePeriod: true}, pass: Pass{HPA: hpa(time.Minute), Start: t0, WakeAt: t0.Add(30 * time.Second)},
			want: Due{At: t0.Add(30 * time.Second)}},
		{name: "gate on: a deadline 10s away is left to the period of an HPA of 3s",
			rules: Rules{Period: period, ConfigurablePeriod: true}, pass: Pass{HPA: hpa(3 * time.Second), Start: t0, WakeAt: t0.Add(10 * time.Second)},
			want: Due{At: t0.Add(3 * time.Second)}},
		{name: "spread: a deadline within a second before the slot is left to the slot",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(4 * time.Second), WakeAt: t0.Add(18*time.Second + 200*time.Millisecond)},
			want: Due{At: t0.Add(19 * time.Second)}},
		{name: "spread: a deadline over a second before the slot wakes the HPA",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(4 * time.Second), WakeAt: t0.Add(17*time.Second + 900*time.Millisecond)},
			want: Due{At: t0.Add(17*time.Second + 900*time.Millisecond)}},
		{name: "spread: a paced pass's deadline before its next pass but after the slot's slack is weighed against the slot",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Start: t0.Add(8 * time.Second), Paced: true, WakeAt: t0.Add(17 * time.Second)},
			want: Due{At: t0.Add(17 * time.Second)}},
		// Endings.
		{name: "a stale cache: the HPA's period after the skip, as upstream",
			rules: Rules{Period: period, Spread: true, ConfigurablePeriod: true}, pass: Pass{HPA: hpa(time.Minute), Ending: StaleCache}, now: time.Second,
			want: Due{At: t0.Add(61 * time.Second)}},
		{name: "a gone HPA asks for nothing",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(period), Ending: Deleted},
			want: Due{None: true}},
		{name: "a first panic waits one global period, spread or not",
			rules: Rules{Period: period, Spread: true}, pass: Pass{HPA: hpa(time.Minute), Ending: Panicked, Panics: 1, Start: t0, Paced: true}, now: time.Second,
			want: Due{At: t0.Add(16 * time.Second)}},
		{name: "a third panic in a row waits four periods",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Ending: Panicked, Panics: 3},
			want: Due{At: t0.Add(time.Minute)}},
		{name: "panics in a row wait at most sixteen periods",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Ending: Panicked, Panics: 40},
			want: Due{At: t0.Add(PanicBackoffMax * period)}},
		{name: "a panic ignores a fallback deadline",
			rules: Rules{Period: period}, pass: Pass{HPA: hpa(period), Ending: Panicked, Panics: 1, WakeAt: t0.Add(time.Second)},
			want: Due{At: t0.Add(period)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rules.AfterPass(tc.pass, t0.Add(tc.now)); got != tc.want {
				t.Errorf("AfterPass = %+v (at +%v), want %+v (at +%v)", got, got.At.Sub(t0), tc.want, tc.want.At.Sub(t0))
			}
		})
	}
}

// update is an Update of h, with a new generation and a new spec as said.
func update(h HPA, generation, spec bool) Update {
	return Update{GenerationChanged: generation, SpecChanged: func() bool { return spec }, HPA: func() HPA { return h }}
}

// TestOnUpdateAsksOnlyWhatItNeeds: an update comes with every status
// write, so what costs to find (a native HPA's spec compared, its slot
// key) is asked only by the rules that read it.
func TestOnUpdateAsksOnlyWhatItNeeds(t *testing.T) {
	cases := []struct {
		name              string
		rules             Rules
		generation        bool
		wantSpec, wantHPA bool
	}{
		{name: "gate off, unspread: a retry, whatever changed", rules: Rules{Period: period}},
		{name: "HPAGeneration: a new generation is enough", rules: Rules{Period: period, Generation: true, Spread: true}, generation: true},
		{name: "spread: a status update reads the spec only", rules: Rules{Period: period, Spread: true}, wantSpec: true},
		{name: "gate on: a status update reads the spec and the period", rules: Rules{Period: period, ConfigurablePeriod: true}, wantSpec: true, wantHPA: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var askedSpec, askedHPA bool
			u := Update{GenerationChanged: tc.generation,
				SpecChanged: func() bool { askedSpec = true; return false },
				HPA:         func() HPA { askedHPA = true; return HPA{Period: period} }}
			tc.rules.OnUpdate(u, t0)
			if askedSpec != tc.wantSpec || askedHPA != tc.wantHPA {
				t.Errorf("asked spec %v, HPA %v; want %v, %v", askedSpec, askedHPA, tc.wantSpec, tc.wantHPA)
			}
		})
	}
}

// TestOnEvents: an informer's add, update or delete, across the gates and
// spreading, and an HPA the slow lane turned away.
func TestOnEvents(t *testing.T) {
	slot4 := HPA{Period: period, SlotKey: slotKeyAt(t, 4*time.Second, period)}
	own := HPA{Period: time.Minute, SlotKey: slot4.SlotKey}
	now := t0.Add(10 * time.Second)
	cases := []struct {
		name string
		got  Due
		want Due
	}{
		{"a new HPA is due at once", Rules{Period: period}.OnAdd(now), Due{At: now}},
		{"a new HPA is due at once, spread", Rules{Period: period, Spread: true}.OnAdd(now), Due{At: now}},
		{"gate off: a status update waits a global period, as a retry", Rules{Period: period}.OnUpdate(update(own, false, false), now), Due{At: now.Add(period), Retry: true}},
		{"gate off: a spec change waits too, as upstream v1.36", Rules{Period: period}.OnUpdate(update(own, false, true), now), Due{At: now.Add(period), Retry: true}},
		{"HPAGeneration: a new generation is due at once", Rules{Period: period, Generation: true}.OnUpdate(update(own, true, true), now), Due{At: now}},
		{"gate on: a spec change is due at once", Rules{Period: period, ConfigurablePeriod: true}.OnUpdate(update(own, false, true), now), Due{At: now}},
		{"gate on: a status update waits the HPA's own period", Rules{Period: period, ConfigurablePeriod: true}.OnUpdate(update(own, false, false), now), Due{At: now.Add(time.Minute)}},
		{"spread: a status update asks for nothing, the HPA is queued already", Rules{Period: period, Spread: true}.OnUpdate(update(slot4, false, false), now), Due{None: true}},
		{"spread: a spec change moves the HPA to its slot", Rules{Period: period, Spread: true}.OnUpdate(update(slot4, false, true), now), Due{At: t0.Add(19 * time.Second)}},
		{"spread, gate on: a spec change is due at once", Rules{Period: period, Spread: true, ConfigurablePeriod: true}.OnUpdate(update(slot4, false, true), now), Due{At: now}},
		{"gate off: a deleted HPA waits for its turn", Rules{Period: period}.OnDelete(now), Due{None: true}},
		{"gate on: a deleted HPA is due at once, its state and series go", Rules{Period: period, ConfigurablePeriod: true}.OnDelete(now), Due{At: now}},
		{"an HPA the slow lane turned away is due at once when a worker frees", Rules{Period: period, Spread: true}.Woken(now), Due{At: now}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("due %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}
