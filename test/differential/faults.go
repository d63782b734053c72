package differential

import (
	"errors"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fault is what kube-hpa's world meets during a step and upstream's does
// not: another writer between kube-hpa's read and its write. kube-hpa
// must end where upstream ends on the fresh state, so the comparison needs
// no allow-list for it: a decision made from the state before the write
// (the old replicas, the old resourceVersion) that kube-hpa wrote anyway,
// or a status edit it lost, shows as a difference.
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
	// StatusConflict: kube-hpa's first status update of the step loses to
	// another writer of the HPA (a label, another controller).
	StatusConflict bool
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
			if *f != (fault{}) {
				st.Fault = f
			}
		}
		steps[i] = st
	}
	s.Steps = steps
	return s
}

// forUpstream is s as upstream's world plays it after kube-hpa's world
// reported, step by step, whether the person's scale of a Person fault
// landed inside a pass (landed): then upstream has it before its pass; if
// not, it lands at the step's end in both. The other faults are kube-hpa's
// alone.
func (s seqScenario) forUpstream(landed []bool) seqScenario {
	steps := make([]step, len(s.Steps))
	for i, st := range s.Steps {
		if f := st.Fault; f != nil {
			st.Fault = nil
			if f.Person && i < len(landed) && landed[i] {
				st.Manual = f.PersonReplicas
			} else if f.Person {
				st.Fault = &fault{Person: true, PersonReplicas: f.PersonReplicas}
			}
		}
		steps[i] = st
	}
	s.Steps = steps
	return s
}

// armedFaults are the faults of the current step still to happen in
// kube-hpa's world.
type armedFaults struct {
	mu      sync.Mutex
	rollout bool
	person  *int32
	landed  bool
	status  bool
	// fired counts the faults that happened, for the run's liveness table.
	fired faultTally
}

// faultTally counts faults by kind: those a sequence armed, and those that
// met a write of kube-hpa's (the others had nothing to interleave with).
type faultTally struct {
	Armed, Fired struct{ Rollout, Person, Status int }
	// ScaleGets counts the reads of the scale subresource.
	ScaleGets int
}

func (t *faultTally) add(o faultTally) {
	t.Armed.Rollout += o.Armed.Rollout
	t.Armed.Person += o.Armed.Person
	t.Armed.Status += o.Armed.Status
	t.Fired.Rollout += o.Fired.Rollout
	t.Fired.Person += o.Fired.Person
	t.Fired.Status += o.Fired.Status
	t.ScaleGets += o.ScaleGets
}

func (a *armedFaults) arm(f *fault) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rollout, a.person, a.landed, a.status = false, nil, false, false
	if f == nil {
		return
	}
	a.rollout, a.status = f.Rollout, f.StatusConflict
	if f.Person {
		n := f.PersonReplicas
		a.person = &n
	}
	a.fired.Armed.Rollout += boolCount(f.Rollout)
	a.fired.Armed.Person += boolCount(f.Person)
	a.fired.Armed.Status += boolCount(f.StatusConflict)
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

// beforeScaleUpdate is called by the scale store before kube-hpa's update:
// the writer that lands in between changes the store (set) and the update
// conflicts.
func (a *armedFaults) beforeScaleUpdate(set func(replicas *int32)) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.person != nil:
		set(a.person)
		a.person, a.landed = nil, true
		a.fired.Fired.Person++
	case a.rollout:
		set(nil)
		a.rollout = false
		a.fired.Fired.Rollout++
	default:
		return nil
	}
	return apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("the object has been modified"))
}

// beforeStatusUpdate reports whether kube-hpa's status update loses to
// another writer.
func (a *armedFaults) beforeStatusUpdate() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	lost := a.status
	a.status = false
	a.fired.Fired.Status += boolCount(lost)
	return lost
}

// unlanded returns the person's scale of the step that no update of its
// first pass met, and whether one did.
func (a *armedFaults) unlanded() (*int32, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.person
	a.person = nil
	return p, a.landed
}
