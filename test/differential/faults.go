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

package differential

import (
	"errors"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fault is what kube-hpa's world meets during a step and upstream's does
// not, or meets otherwise: another writer between kube-hpa's read and its
// write, a watch running behind, a provider that hangs. kube-hpa must end
// where upstream ends on the fresh state, so the comparison needs no
// allow-list for it: a decision made from the state before the write (the
// old replicas, the old resourceVersion) that kube-hpa wrote anyway, or a
// status edit it lost, shows as a difference.
type fault struct {
	// Rollout: another writer changes the target, not its replicas (a
	// rollout, a label), between kube-hpa's read and its first scale
	// update of the step.
	Rollout bool
	// Person: a person scales the target to PersonReplicas between
	// kube-hpa's read and its scale update in the step's first pass;
	// upstream's world has the person's scale before that pass. When that
	// pass of kube-hpa updates no scale, the person's scale lands right
	// after the pass in both worlds.
	Person         bool
	PersonReplicas int32
	// Recreate: the person's change of the step (its Manual, or Person's)
	// deletes the target and creates it again under its name, with a new
	// UID and that many replicas, instead of scaling it; in both worlds.
	Recreate bool
	// Lag: the step's Manual change reaches kube-hpa's watch only after
	// its first pass of the step; the scale subresource has it from the
	// step's start. A pass that wrote the scale met a conflict and decided
	// again from a fresh read: upstream's world has the change before its
	// pass. A pass that wrote nothing decided from the state before the
	// change, as a pass a moment earlier would have: the change lands
	// right after upstream's pass, as an unmet Person's does.
	Lag bool
	// StatusConflict: kube-hpa's first status update of the step loses to
	// another writer of the HPA (a label, another controller).
	StatusConflict bool
	// StatusFail, when set (statusfail.go), fails the status update of
	// the HPA that follows the step's first scale update, with a 500 or a
	// time-out; in both worlds.
	StatusFail string
	// StatusWriter, when set (statuswriter.go), is another writer of the
	// HPA's status, with content of its own: statusWriterRace in kube-hpa's
	// world, statusWriterBefore or statusWriterAfter in upstream's.
	StatusWriter string
	// HPALag (hpawatch.go): the HPA's watch holds its events from the
	// step's start until past its second pass, so that a status write of
	// the first pass reaches the controller's cache late and the second
	// pass is skipped as stale; in both worlds. Steps of two periods or
	// more only.
	HPALag bool
	// Hang lists the metric indexes whose fetches hang in this step until
	// kube-hpa's per-pass fetch budget ends them; upstream, which has no
	// budget, gets the error at once (fakemetrics.go).
	Hang []int
	// Handover (handover.go): the controller stops at the step's start and
	// a fresh instance, with empty memory, starts when the step's first
	// pass is due, and makes it; in both worlds. Not with Lag or HPALag.
	Handover bool
	// SlowFetch lists the metric indexes whose fetches answer only after
	// slowFetchDelay in this step (slowfetch.go); in both worlds. From a
	// step on to the sequence's end, one metric, without Hang, handovers
	// or a twin.
	SlowFetch []int
}

// withFaults gives some steps of s a fault, drawn from g: a generator of
// its own, so that the sequences without faults are those of the same seed
// before faults existed.
func (s seqScenario) withFaults(g *gen) seqScenario {
	steps := make([]step, len(s.Steps))
	for i, st := range s.Steps {
		if g.chance(0.15) {
			f := &fault{Rollout: g.chance(0.4), StatusConflict: g.chance(0.4)}
			if st.Manual < 0 && g.chance(0.5) {
				f.Person, f.PersonReplicas = true, int32(pick(g, 0, 1, 3, g.intn(0, 40)))
			}
			st = s.drawMoreFaults(g, st, f)
			if !f.empty() {
				st.Fault = f
			}
		}
		steps[i] = st
	}
	s.Steps = steps
	return s
}

// drawMoreFaults adds to f the kinds drawn after the first three, and
// returns st with the person's scale a Lag or a Recreate needs. A Hang
// keeps kube-hpa's first pass running past the moment an unmet person's
// change lands (landAfter), so it never comes with a Person or a Lag; nor
// is it on a metric the twin shares: the twin's pass, waiting for the
// first's fetch in the bubble, ends on its own deadline at the very
// instant that fetch ends, and takes either answer.
func (s seqScenario) drawMoreFaults(g *gen, st step, f *fault) step {
	change := func() int32 { return int32(pick(g, 0, 1, 3, g.intn(0, 40))) }
	if !f.Person && g.chance(0.35) {
		f.Lag = true
		if st.Manual < 0 {
			st.Manual = change()
		}
	}
	// A re-creation is the person's change of the step, or one of its own
	// between two passes.
	switch hasChange := f.Person || st.Manual >= 0; {
	case hasChange && g.chance(0.3):
		f.Recreate = true
	case !hasChange && g.chance(0.1):
		f.Recreate, st.Manual = true, change()
	}
	if !f.Person && !f.Lag && g.chance(0.3) {
		if i := g.intn(0, len(s.Metrics)-1); !s.sharedWithTwin(i) {
			f.Hang = []int{i}
		}
	}
	// Drawn last, so that the other kinds fall where they did before.
	if g.chance(0.3) {
		f.StatusFail = pick(g, statusFail500, statusFailTimeout)
	}
	// One other writer of the status at a time: a conflict of its own, or
	// a failed write, would hide what it leaves. Not with a Hang, for the
	// Person's reason: the hung pass would write after the writer landed,
	// over a status it read before (the fake API server does not refuse
	// an update of an older resourceVersion).
	if !f.StatusConflict && f.StatusFail == "" && len(f.Hang) == 0 && g.chance(0.3) {
		f.StatusWriter = statusWriterRace
	}
	if st.Advance >= 2 && g.chance(0.25) {
		f.HPALag = true
	}
	return st
}

func (f *fault) empty() bool {
	return !f.Rollout && !f.Person && !f.Recreate && !f.Lag && !f.StatusConflict && len(f.Hang) == 0 && f.StatusFail == "" && f.StatusWriter == "" && !f.HPALag && !f.Handover && len(f.SlowFetch) == 0
}

// forUpstream is s as upstream's world plays it after kube-hpa's world
// reported, step by step, whether the person's change of a Person or Lag
// fault met a write of kube-hpa's first pass (landed): then upstream has it
// before its pass; if not, it lands right after its pass, in both worlds.
// A competing status writer lands the same way, as its meeting a status
// update of kube-hpa's says (log.statusMet). A re-creation, a hang and a
// lagging HPA watch are upstream's too, and so are a handover and a slow
// fetch; the other faults are kube-hpa's alone.
func (s seqScenario) forUpstream(log faultLog) seqScenario {
	landed := log.landed
	steps := make([]step, len(s.Steps))
	for i, st := range s.Steps {
		if f := st.Fault; f != nil {
			met := i < len(landed) && landed[i]
			up := &fault{Recreate: f.Recreate, Hang: f.Hang, StatusFail: f.StatusFail, HPALag: f.HPALag, Handover: f.Handover, SlowFetch: f.SlowFetch}
			if f.StatusWriter != "" {
				up.StatusWriter = statusWriterAfter
				if i < len(log.statusMet) && log.statusMet[i] {
					up.StatusWriter = statusWriterBefore
				}
			}
			switch {
			case f.Person && met:
				st.Manual = f.PersonReplicas
			case f.Person:
				up.Person, up.PersonReplicas = true, f.PersonReplicas
			case f.Lag && !met:
				up.Person, up.PersonReplicas = true, st.Manual
				st.Manual = -1
			}
			st.Fault = nil
			if !up.empty() {
				st.Fault = up
			}
		}
		steps[i] = st
	}
	s.Steps = steps
	return s
}

// personsChange is a person's change of the target: a scale, or a
// re-creation with that many replicas.
type personsChange struct {
	replicas int32
	recreate bool
}

// armedFaults are the faults of the current step still to happen in
// kube-hpa's world.
type armedFaults struct {
	mu      sync.Mutex
	rollout bool
	person  *personsChange
	// lag: the step's change is held back from the watch, and no scale
	// update of kube-hpa's has met it yet; lagRecreate: that change is a
	// re-creation.
	lag, lagRecreate bool
	landed           bool
	status           bool
	// statusWriter: the step's competing status writer has not landed;
	// statusWriterMet: it met a status update of kube-hpa's.
	statusWriter, statusWriterMet bool
	// fired counts the faults that happened, for the run's liveness table.
	fired faultTally
}

// faultTally counts faults by kind: those a sequence armed, and those that
// met kube-hpa (a write of its that another writer's change, a person's
// scale, a re-creation or a lagging watch turned into a conflict; a status
// update lost; a fetch that hung until its budget ended it).
type faultTally struct {
	Armed, Fired faultCounts
	// ScaleGets counts the reads of the scale subresource.
	ScaleGets int
	// StatusFail counts the failed status writes (statusfail.go).
	StatusFail statusFailTally
	// HPALag counts the steps whose HPA watch was held past their second
	// pass, StaleSkips the passes (of both HPAs) skipped as stale then.
	HPALag, StaleSkips int
	// Handovers counts the handovers the world made, HandoversArmed the
	// steps of its sequence that had one (handover.go).
	Handovers, HandoversArmed int
	// SlowAnswers counts the fetches that answered after slowFetchDelay,
	// SlowFetchArmed the steps of its sequence with slow fetches
	// (slowfetch.go).
	SlowAnswers, SlowFetchArmed int
}

// faultCounts counts faults by kind.
type faultCounts struct{ Rollout, Person, Recreate, Lag, Status, StatusWriter, Hang int }

func (c *faultCounts) add(o faultCounts) {
	c.Rollout += o.Rollout
	c.Person += o.Person
	c.Recreate += o.Recreate
	c.Lag += o.Lag
	c.Status += o.Status
	c.StatusWriter += o.StatusWriter
	c.Hang += o.Hang
}

func (t *faultTally) add(o faultTally) {
	t.Armed.add(o.Armed)
	t.Fired.add(o.Fired)
	t.ScaleGets += o.ScaleGets
	t.StatusFail.add(o.StatusFail)
	t.HPALag += o.HPALag
	t.StaleSkips += o.StaleSkips
	t.Handovers += o.Handovers
	t.HandoversArmed += o.HandoversArmed
	t.SlowAnswers += o.SlowAnswers
	t.SlowFetchArmed += o.SlowFetchArmed
}

func (a *armedFaults) arm(f *fault) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rollout, a.person, a.lag, a.landed, a.status = false, nil, false, false, false
	a.statusWriter, a.statusWriterMet = false, false
	if f == nil {
		return
	}
	a.statusWriter = f.StatusWriter == statusWriterRace
	a.fired.Armed.StatusWriter += boolCount(a.statusWriter)
	a.rollout, a.status, a.lag, a.lagRecreate = f.Rollout, f.StatusConflict, f.Lag, f.Lag && f.Recreate
	if f.Person {
		a.person = &personsChange{replicas: f.PersonReplicas, recreate: f.Recreate}
	}
	a.fired.Armed.Rollout += boolCount(f.Rollout)
	a.fired.Armed.Person += boolCount(f.Person)
	a.fired.Armed.Recreate += boolCount(f.Recreate)
	a.fired.Armed.Lag += boolCount(f.Lag)
	a.fired.Armed.Status += boolCount(f.StatusConflict)
	a.fired.Armed.Hang += boolCount(len(f.Hang) > 0)
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tally returns the faults counted so far.
func (a *armedFaults) tally() faultTally {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fired
}

// hung counts a fetch of kube-hpa's that hung until its budget ended it.
func (a *armedFaults) hung() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fired.Fired.Hang++
}

// beforeScaleUpdate is called by the scale store before kube-hpa's update:
// the writer that lands in between changes the store (change: a person's
// change, or nil for one that keeps the replicas) and the update
// conflicts. A lagging watch needs no writer: the update carries the
// version the watch had, and conflicts by itself.
func (a *armedFaults) beforeScaleUpdate(change func(*personsChange)) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lag {
		a.lag, a.landed = false, true
		a.fired.Fired.Lag++
		a.fired.Fired.Recreate += boolCount(a.lagRecreate)
	}
	switch {
	case a.person != nil:
		change(a.person)
		a.fired.Fired.Recreate += boolCount(a.person.recreate)
		a.person, a.landed = nil, true
		a.fired.Fired.Person++
	case a.rollout:
		change(nil)
		a.rollout = false
		a.fired.Fired.Rollout++
	default:
		return nil
	}
	return apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("the object has been modified"))
}

// beforeStatusUpdate reports whether kube-hpa's status update loses to
// another writer, and whether that writer is the step's competing status
// writer, whose content must land first.
func (a *armedFaults) beforeStatusUpdate() (lost, competing bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.statusWriter {
		a.statusWriter, a.statusWriterMet = false, true
		a.fired.Fired.StatusWriter++
		return true, true
	}
	lost = a.status
	a.status = false
	a.fired.Fired.Status += boolCount(lost)
	return lost, false
}

// statusWriterLeft reports whether the step's competing status writer has
// still to land (no status update met it), and whether one met it.
func (a *armedFaults) statusWriterLeft() (pending, met bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pending = a.statusWriter
	a.statusWriter = false
	return pending, a.statusWriterMet
}

// unlanded returns the person's change of the step that no update of its
// first pass met, and whether one met the step's person's change (a
// Person's or a lagging Manual's).
func (a *armedFaults) unlanded() (*personsChange, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.person
	a.person, a.lag = nil, false
	return p, a.landed
}
