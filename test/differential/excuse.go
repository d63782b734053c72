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
	"fmt"
	"slices"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// verdict is what the allow-list made of the differences of one sequence.
type verdict struct {
	// by lists the entries that excused a step, in the order of first use.
	by []*allowed
	// uses counts, per entry, the steps it excused.
	uses map[*allowed]excuseUses
	// diff is the first difference that no entry excused.
	diff *seqDiff
	// misuse says where an entry fired outside its documented condition.
	misuse string
}

// excuseUses counts the steps an entry excused: where its condition held
// (caused, or rewritten for a rewrite), and the steps after a cause that
// still differed as its consequences (carried).
type excuseUses struct {
	caused, carried int
}

func (v *verdict) use(a *allowed, carried bool) {
	if !slices.Contains(v.by, a) {
		v.by = append(v.by, a)
	}
	u := v.uses[a]
	if carried {
		u.carried++
	} else {
		u.caused++
	}
	v.uses[a] = u
}

// classifySeq compares two runs step by step. A step that differs is
// excused by an entry whose cause holds at that step, else by rewrites
// that hold there, else as the consequence of the last cause while the
// runs have not met since or the HPA may still remember it (memory);
// anything else is the verdict's diff. An entry that changes or excuses a
// step where its condition does not hold is a misuse: the allow-list would
// hide a difference it does not document.
func classifySeq(s seqScenario, up, ours []observation) verdict {
	if s.Twin != nil {
		return classifyWithTwin(s, up, ours)
	}
	up, ours = cloneObservations(up), cloneObservations(ours)
	v := verdict{uses: map[*allowed]excuseUses{}}
	var carrier *allowed
	lastExcused, lastCause, previousDiffered := -1, -1, false
	for k := range min(len(up), len(ours)) {
		fields := diffObservation(up[k], ours[k])
		if fields == nil {
			// A cause the step does not show (an overflowed proposal that
			// both clamp to the same count) is remembered all the same: the
			// HPA keeps its recommendation, whose consequences may show in
			// a later step, within memory.
			if a := causeAt(s, up, ours, k); a != nil {
				carrier, lastExcused, lastCause = a, k, k
			}
			previousDiffered = false
			continue
		}
		if a := causeAt(s, up, ours, k); a != nil {
			if len(a.signature) > 0 && !slices.ContainsFunc(fields, func(f string) bool { return slices.Contains(a.signature, f) }) {
				v.misuse = fmt.Sprintf("%q excused step %d, whose difference (%v) is none of its own (%v)", a.Class, k, fields, a.signature)
				return v
			}
			if !a.confines(fields) {
				v.misuse = fmt.Sprintf("%q excused step %d, whose difference (%v) goes beyond its own (%v)", a.Class, k, fields, a.confined)
				return v
			}
			v.use(a, false)
			carrier, lastExcused, lastCause, previousDiffered = a, k, k, true
			continue
		}
		if v.misuse = rewriteStep(s, k, &up[k], &ours[k], &v); v.misuse != "" {
			return v
		}
		if fields = diffObservation(up[k], ours[k]); fields == nil {
			previousDiffered = false
			continue
		}
		// A consequence may arise at any pass of step k: the HPA may still
		// remember the cause if step k began within its memory.
		if carrier != nil && carrier.carries(s, up, ours, fields, previousDiffered, lastExcused, lastCause, k) {
			v.use(carrier, true)
			lastExcused, previousDiffered = k, true
			continue
		}
		v.diff = &seqDiff{Step: k, Fields: fields}
		return v
	}
	return v
}

// carries tells whether a's cause may account for step k's difference:
// while the runs have differed since, or within the HPA's memory of the
// last step excused; a bounded entry within the memory of its last cause
// only, or for what the counts it left decide (remnant, windowsParted),
// and a confined one for its own differences only.
func (a *allowed) carries(s seqScenario, up, ours []observation, fields []string, previousDiffered bool, lastExcused, lastCause, k int) bool {
	if !a.confines(fields) {
		return false
	}
	if a.boundedCarry {
		return s.elapsed(lastCause, k-1) <= s.memory() ||
			previousDiffered && k > 0 && (remnant(up[k-1], ours[k-1], up[k], ours[k], fields) || s.windowsParted(k, up, ours))
	}
	return previousDiffered || s.elapsed(lastExcused, k-1) <= s.memory()
}

// remnant tells whether step k's difference is what an earlier one left,
// with no decision of the step that could tell the controllers apart
// (prevUp and prevOurs are step k-1's): times stored by an earlier rescale
// or transition; or the replicas an earlier decision left, while each
// controller keeps its count (it cannot compute one, ScalingActive=False,
// or the tolerance holds), or one of them moves its count toward the
// other's without passing it. Once the counts meet, only the stored times
// may differ, and, at the step where both decide the same new count, the
// current replicas each read: the count each had left.
func remnant(prevUp, prevOurs, up, ours observation, fields []string) bool {
	stamp := func(f string) bool { return f == "lastScaleTime" || strings.HasSuffix(f, ".lastTransitionTime") }
	if !slices.ContainsFunc(fields, func(f string) bool { return !stamp(f) }) {
		return true
	}
	inactive := func(o *observation) bool {
		c := condition(o, "ScalingActive")
		return c != nil && c.Status == "False"
	}
	// untouched: a condition (one that either has: not the conditions'
	// order) that each controller's pass left as its previous step had it,
	// present or absent.
	untouched := func(f string) bool {
		prefix, _, ok := strings.Cut(f, ".")
		name := autoscalingv2.HorizontalPodAutoscalerConditionType(prefix)
		return ok && (condition(&up, name) != nil || condition(&ours, name) != nil) &&
			equality.Semantic.DeepEqual(condition(&prevUp, name), condition(&up, name)) &&
			equality.Semantic.DeepEqual(condition(&prevOurs, name), condition(&ours, name))
	}
	// Passes that computed no count (a target at zero, metrics that
	// failed) decide none of the conditions they leave untouched; and a
	// condition one controller set at an earlier rescale and the other
	// never did stays as present or absent as it was.
	bothInactive := inactive(&up) && inactive(&ours)
	if !slices.ContainsFunc(fields, func(f string) bool {
		return !stamp(f) && !(untouched(f) && (bothInactive || strings.HasSuffix(f, ".presence")))
	}) {
		return true
	}
	// A step whose status neither controller wrote (the writes failed)
	// shows the status the step before left.
	if equality.Semantic.DeepEqual(prevUp.Status, up.Status) && equality.Semantic.DeepEqual(prevOurs.Status, ours.Status) &&
		!slices.Contains(fields, "scale") && !slices.Contains(fields, "events") {
		return true
	}
	if prevUp.Scale == prevOurs.Scale {
		return false
	}
	if up.Scale == ours.Scale && up.Status.CurrentReplicas == prevUp.Scale && ours.Status.CurrentReplicas == prevOurs.Scale &&
		!slices.ContainsFunc(fields, func(f string) bool {
			return !stamp(f) && f != "currentReplicas" && (f != "currentMetrics" || !onlyAveragesDiffer(up.Status.CurrentMetrics, ours.Status.CurrentMetrics))
		}) {
		return true
	}
	// holding: the pass recommended the count it had, or its
	// stabilization window (recommendations of the counts it had) held it.
	holding := func(o *observation) bool {
		c := condition(o, "AbleToScale")
		return c != nil && (c.Reason == "ReadyForNewScale" && c.Message == "recommended size matches current size" ||
			c.Reason == "ScaleDownStabilized" || c.Reason == "ScaleUpStabilized")
	}
	// kept: the count stayed, decided by nothing of this step; a pass that
	// read its count and kept it, with a person's scale after it, too.
	kept := func(prev, o *observation) bool {
		held := o.Scale == prev.Scale || o.Status.CurrentReplicas == prev.Scale && o.Status.DesiredReplicas == prev.Scale
		return held && (inactive(o) || holding(o))
	}
	// closing: the count moved toward where the other stood, and no
	// further than where the other ends.
	closing := func(prev, o, other *observation) bool {
		lo, hi := min(prev.Scale, other.Scale), max(prev.Scale, other.Scale)
		return o.Scale != prev.Scale && o.Scale >= lo && o.Scale <= hi
	}
	// One controller at most moves, or both move to meet at one count
	// between the two they had: two that both decide other counts are
	// compared, as at any step.
	keptUp, keptOurs := kept(&prevUp, &up), kept(&prevOurs, &ours)
	meet := up.Scale == ours.Scale && up.Scale >= min(prevUp.Scale, prevOurs.Scale) && up.Scale <= max(prevUp.Scale, prevOurs.Scale)
	return keptUp && (keptOurs || closing(&prevOurs, &ours, &up)) || keptOurs && closing(&prevUp, &up, &ours) || meet
}

// windowsParted tells whether step k's difference comes from stabilization
// windows that the counts an earlier difference left filled differently:
// one controller holds its count by its window (Scale...Stabilized) while
// the other, which computed no count at any pass of step k-1 (ScalingActive
// False since its first pass, so its window kept no recommendation of that
// step), moves the way the holder's window held from beyond the holder's
// count to it or past it. With step k-1 as long as the HPA's memory, each
// window holds only what its controller decided from the count it had, and
// the mover decides what upstream's algorithm decides from an empty window
// (-seed 1796278193 -case 20122: the twin, which kube-hpa's saturated
// proposal left at its maximum, refuses to scale down while a metric fails,
// where upstream, lower, scales up with it and remembers that).
func (s seqScenario) windowsParted(k int, up, ours []observation) bool {
	if k < 1 || time.Duration(s.Steps[k-1].Advance)*syncPeriod < s.memory()-syncPeriod {
		return false
	}
	firstPass := s.elapsed(-1, k-2) + syncPeriod
	parted := func(holdPrev, hold, movePrev, move *observation) bool {
		c := condition(hold, autoscalingv2.AbleToScale)
		if c == nil || hold.Scale != holdPrev.Scale {
			return false
		}
		a := condition(movePrev, autoscalingv2.ScalingActive)
		if a == nil || a.Status != corev1.ConditionFalse || a.LastTransitionTime.Sub(time.Unix(0, 0)) > firstPass {
			return false
		}
		switch c.Reason {
		case "ScaleDownStabilized":
			return movePrev.Scale > hold.Scale && move.Scale < movePrev.Scale && move.Scale <= hold.Scale
		case "ScaleUpStabilized":
			return movePrev.Scale < hold.Scale && move.Scale > movePrev.Scale && move.Scale >= hold.Scale
		}
		return false
	}
	return parted(&up[k-1], &up[k], &ours[k-1], &ours[k]) || parted(&ours[k-1], &ours[k], &up[k-1], &up[k])
}

// onlyAveragesDiffer tells whether two metric statuses differ in their
// averages alone: the averages over the current replicas that each
// controller read, where an earlier decision left different counts.
func onlyAveragesDiffer(up, ours []autoscalingv2.MetricStatus) bool {
	withoutAverages := func(in []autoscalingv2.MetricStatus) []autoscalingv2.MetricStatus {
		out := make([]autoscalingv2.MetricStatus, len(in))
		for i, m := range in {
			m = *m.DeepCopy()
			if c := currentOf(&m); c != nil {
				c.AverageValue = nil
			}
			out[i] = m
		}
		return out
	}
	return equality.Semantic.DeepEqual(withoutAverages(up), withoutAverages(ours))
}

// currentOf is the current value of a metric status, of whichever source.
func currentOf(m *autoscalingv2.MetricStatus) *autoscalingv2.MetricValueStatus {
	switch {
	case m.External != nil:
		return &m.External.Current
	case m.Object != nil:
		return &m.Object.Current
	case m.Pods != nil:
		return &m.Pods.Current
	case m.Resource != nil:
		return &m.Resource.Current
	case m.ContainerResource != nil:
		return &m.ContainerResource.Current
	}
	return nil
}

// confines tells whether every difference of fields is one a may excuse.
func (a *allowed) confines(fields []string) bool {
	if len(a.confined) == 0 {
		return true
	}
	for _, f := range fields {
		if !slices.ContainsFunc(a.confined, func(c string) bool {
			return c == f || strings.HasSuffix(c, ".") && strings.HasPrefix(f, c)
		}) {
			return false
		}
	}
	return true
}

// rewriteStep applies to one step every rewrite that changes it, and
// returns a misuse when one changes a step where it does not hold.
func rewriteStep(s seqScenario, k int, up, ours *observation, v *verdict) string {
	for i := range allowList {
		a := &allowList[i]
		if a.rewrite == nil {
			continue
		}
		u, o := cloneObservation(*up), cloneObservation(*ours)
		a.rewrite(s, &u, &o)
		if distance(u, o) >= distance(*up, *ours) {
			// It changed nothing that differed.
			continue
		}
		if a.holds != nil && !a.holds(s, k, *up, *ours) {
			return fmt.Sprintf("%q rewrote step %d, where its condition does not hold", a.Class, k)
		}
		*up, *ours = u, o
		v.use(a, false)
	}
	return ""
}

// distance counts the parts of two observations that differ: the scale,
// replica counts, each metric status, each condition and each event, by
// position.
func distance(up, ours observation) int {
	n := len(diffObservation(up, ours))
	for i := range max(len(up.Status.CurrentMetrics), len(ours.Status.CurrentMetrics)) {
		if i >= len(up.Status.CurrentMetrics) || i >= len(ours.Status.CurrentMetrics) ||
			!equality.Semantic.DeepEqual(up.Status.CurrentMetrics[i], ours.Status.CurrentMetrics[i]) {
			n++
		}
	}
	for i := range max(len(up.Events), len(ours.Events)) {
		if i >= len(up.Events) || i >= len(ours.Events) || up.Events[i] != ours.Events[i] {
			n++
		}
	}
	return n
}

func causeAt(s seqScenario, up, ours []observation, k int) *allowed {
	for i := range allowList {
		if a := &allowList[i]; a.cause != nil && a.cause(s, up, ours, k) {
			return a
		}
	}
	return nil
}

// memory is how long the controllers remember a decision: the longest
// stabilization window or policy period of the HPA, and a period more for
// the pass that reads it.
func (s seqScenario) memory() time.Duration {
	longest := downscaleWindow + s.windowNudge
	for _, r := range []*rules{s.Up, s.Down} {
		if r == nil {
			continue
		}
		if r.Window >= 0 {
			longest = max(longest, time.Duration(r.Window)*time.Second)
		}
		for _, p := range r.Policies {
			longest = max(longest, time.Duration(p.Period)*time.Second)
		}
	}
	return longest + syncPeriod
}

// elapsed is the time from the end of step from to the end of step to
// (0 when to is from).
func (s seqScenario) elapsed(from, to int) time.Duration {
	var d time.Duration
	for _, st := range s.Steps[from+1 : to+1] {
		d += time.Duration(st.Advance) * syncPeriod
	}
	return d
}

// requestProblems counts the pods of a step that lack a request the
// controllers may need: an error about one of them names whichever pod the
// informer cache lists first.
func requestProblems(st step) int {
	n := 0
	for _, p := range st.Pods {
		sidecar := p.Sidecar && (p.SidecarCPU < 0 || p.SidecarMem < 0)
		podLevel := (p.PodCPU > 0) != (p.PodMem > 0)
		if p.CPU < 0 || p.Mem < 0 || sidecar || podLevel {
			n++
		}
	}
	return n
}

func cloneObservation(o observation) observation {
	out := observation{Scale: o.Scale, Status: *o.Status.DeepCopy(), Events: slices.Clone(o.Events)}
	if o.Twin != nil {
		twin := cloneObservation(*o.Twin)
		out.Twin = &twin
	}
	return out
}
