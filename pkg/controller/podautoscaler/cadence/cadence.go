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

import "time"

// Rules are the flags and gates the cadence depends on.
type Rules struct {
	// Period is --horizontal-pod-autoscaler-sync-period.
	Period time.Duration
	// Spread is --horizontal-pod-autoscaler-spread-reconciles.
	Spread bool
	// ConfigurablePeriod is the HPAConfigurableSyncPeriod gate.
	ConfigurablePeriod bool
	// Generation is the HPAGeneration gate.
	Generation bool
}

// HPA is what the cadence of one HPA depends on.
type HPA struct {
	// Period is the HPA's sync period: its own with ConfigurablePeriod,
	// else the global one.
	Period time.Duration
	// SlotKey is what its offset is taken from when spread (Offset).
	SlotKey string
}

// Due is when an HPA is next due. None asks the queue for nothing: the HPA
// is queued already, or comes back at its next turn. At, when it is not
// after the time asked at, means at once. Retry marks the global period
// after a pass or an update with neither spreading nor configurable
// periods: upstream's queue takes it as a retry of the HPA (its rate
// limiter gives the period, and workqueue_retries_total counts it), and so
// does the controller's.
type Due struct {
	At    time.Time
	None  bool
	Retry bool
}

// at is a Due at t.
func at(t time.Time) Due { return Due{At: t} }

// retry is a Due one global period after now, as a retry.
func (r Rules) retry(now time.Time) Due { return Due{At: now.Add(r.Period), Retry: true} }

// none asks for nothing.
var none = Due{None: true}

// Update is what an informer's update changed. What costs to find (a native
// HPA's spec compared, the HPA's slot key) is asked only by the rules that
// need it: a controller receives an update per status write.
type Update struct {
	// GenerationChanged: metadata.generation moved (the API server's count
	// of spec changes).
	GenerationChanged bool
	// SpecChanged reports whether the spec differs (an extended HPA's
	// generation, or a native HPA's spec compared, as v1.36 counts no
	// generation for it).
	SpecChanged func() bool
	// HPA is the cadence of the updated HPA.
	HPA func() HPA
}

// OnAdd is when an HPA the informer just delivered is due: at once, as
// v1.37 has it (v1.36 waited a period).
func (r Rules) OnAdd(now time.Time) Due { return at(now) }

// OnUpdate is when an HPA is due after an update u. A new spec is
// reconciled at once; any other update (the controller's own status write,
// a label) asks for nothing earlier than the HPA's period, and spread it
// asks for nothing: the HPA is queued already, since every pass queues its
// next one, and a status write must not bring forward a pass that the last
// one paced.
func (r Rules) OnUpdate(u Update, now time.Time) Due {
	if r.Generation && u.GenerationChanged {
		return at(now)
	}
	if !r.Spread && !r.ConfigurablePeriod {
		return r.retry(now)
	}
	spec := u.SpecChanged()
	switch {
	case r.ConfigurablePeriod && spec:
		return at(now)
	case r.Spread && spec:
		// The spec may have moved its slot.
		return at(u.HPA().slotAfter(now))
	case r.Spread:
		return none
	}
	return at(now.Add(u.HPA().Period))
}

// Woken is when an HPA that the slow lane turned away, for want of a free
// worker, is due once one frees: at once.
func (r Rules) Woken(now time.Time) Due { return at(now) }

// OnDelete is when a deleted HPA's pass, which finds it gone and drops its
// state and series, is due: at once with ConfigurablePeriod (periods of
// up to an hour would keep them that long), else at its next turn, as
// upstream.
func (r Rules) OnDelete(now time.Time) Due {
	if r.ConfigurablePeriod {
		return at(now)
	}
	return none
}

// Ending is how a pass ended.
type Ending int

const (
	// Passed: the pass ran, whatever its result.
	Passed Ending = iota
	// StaleCache: no pass was made, the HPA cache had not seen the
	// controller's last write of it.
	StaleCache
	// Panicked: the pass panicked.
	Panicked
	// Deleted: the HPA is gone.
	Deleted
)

// Pass is what AfterPass needs of a pass that ended.
type Pass struct {
	HPA    HPA
	Ending Ending
	// Start and End are when the pass started and ended. Start is zero
	// when the pass did not get as far as the reconcile.
	Start, End time.Time
	// Paced: the pass rescaled, or a rate limit held part of the
	// recommendation back; the next step is due a period after this one.
	Paced bool
	// WakeAt, when set, is a deadline (a fallback coming due) at which the
	// HPA should pass again.
	WakeAt time.Time
	// Panics is how many passes in a row panicked, this one included.
	Panics int
}

// WakeSlack is how long before the HPA's next pass a deadline may fall and
// still wait for that pass. A deadline is often met a moment before the
// pass that would have met it exactly (a failure duration that is a whole
// number of periods); waking for it would cost a whole extra pass to act
// less than a second earlier.
const WakeSlack = time.Second

// PanicBackoffMax bounds the backoff of an HPA whose passes keep panicking,
// in global periods.
const PanicBackoffMax = 16

// AfterPass is when the HPA of a pass that ended is due again, asked at
// now (at or after p.End).
func (r Rules) AfterPass(p Pass, now time.Time) Due {
	switch p.Ending {
	case StaleCache:
		// As upstream: a period later, by when the watch has delivered
		// the write.
		return at(now.Add(p.HPA.Period))
	case Deleted:
		return none
	case Panicked:
		return at(now.Add(r.panicBackoff(p.Panics)))
	}
	next := r.nextPass(p, now)
	if !p.WakeAt.IsZero() && r.regularPass(p, now).Sub(p.WakeAt) > WakeSlack && p.WakeAt.Before(next.At) {
		return at(p.WakeAt)
	}
	return next
}

// nextPass is when the HPA comes back after a pass. Unspread, one period
// after the pass ended, as upstream does with its one global period: a
// pass that took longer than the period queues nothing more than that one
// turn, so a slow adapter cannot pile work up, and the answer of a shared
// External metric it got is always more than a period old at its next
// pass. Spread, on its next slot after the pass's start, or one period
// after that start when the pass paced the next one: a pass that took long
// (a provider hanging until the fetch budget) costs the HPA neither its
// period nor a step of its ramp, as it records its rescale at its start.
func (r Rules) nextPass(p Pass, now time.Time) Due {
	if r.Spread {
		if p.Paced {
			return at(p.Start.Add(p.HPA.Period))
		}
		from := p.Start
		if from.IsZero() {
			from = now
		}
		return at(p.HPA.slotAfter(from))
	}
	if !r.ConfigurablePeriod {
		return r.retry(now)
	}
	return at(now.Add(p.HPA.Period))
}

// regularPass is the pass a deadline is weighed against: the next slot
// after the pass's start when spread, a period after that start
// otherwise, whether or not the pass paced the next one.
func (r Rules) regularPass(p Pass, now time.Time) time.Time {
	start := p.Start
	if start.IsZero() {
		start = now
	}
	if r.Spread {
		return p.HPA.slotAfter(start)
	}
	return start.Add(p.HPA.Period)
}

// panicBackoff is the wait after the panics-th panic in a row: one global
// period, doubling with each, up to PanicBackoffMax periods.
func (r Rules) panicBackoff(panics int) time.Duration {
	wait := r.Period
	for i := 1; i < panics && wait < PanicBackoffMax*r.Period; i++ {
		wait *= 2
	}
	return min(wait, PanicBackoffMax*r.Period)
}
