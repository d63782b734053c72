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
	"strings"
)

// The liveness table says that a run exercised what it claims to compare:
// how many sequences made each controller rescale (a run where neither
// ever scales agrees trivially), by class of sequence, and how many of the
// faults kube-hpa's world armed met one of its writes.

// rescaleCount is how many rescales a run's events report.
func rescaleCount(obs []observation) int {
	n := 0
	for _, o := range obs {
		for _, e := range o.Events {
			if strings.Contains(e, "SuccessfulRescale") {
				n++
			}
		}
	}
	return n
}

// liveness counts, per class of sequence, the sequences in which each
// controller rescaled.
type liveness struct {
	sequences, upstream, kubeHPA, onlyUpstream, onlyKubeHPA int
	// unexcused counts the sequences in which one controller rescaled and
	// the other did not, that no allow-list entry excused.
	unexcused int
}

// seqClass names the class of a sequence for the liveness table.
func seqClass(s seqScenario) string {
	for _, st := range s.Steps {
		if st.Fault != nil {
			return "with faults"
		}
	}
	return "without faults"
}

// live records one sequence in the liveness table; excused says whether
// an allow-list entry accepted a difference of it.
func (r *report) live(s seqScenario, up, ours []observation, log faultLog, excused bool) {
	tally := log.tally
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.liveness == nil {
		r.liveness = map[string]*liveness{}
	}
	r.liveOf(seqClass(s), up, ours, excused)
	if s.Twin != nil {
		_, upTwin := splitTwins(up)
		_, oursTwin := splitTwins(ours)
		r.liveOf(twinClass, upTwin, oursTwin, excused)
	}
	r.faults.add(tally)
	r.upstreamScaleGets += log.upstreamScaleGets
	r.upstreamStaleSkips += log.upstreamStaleSkips
	r.upstreamHandovers += log.upstreamHandovers
	r.upstreamSlowAnswers += log.upstreamSlowAnswers
}

// twinClass is the liveness class of the twin HPAs (twin.go), whose
// sequences also count in their own class by the first HPA.
const twinClass = "twin HPAs"

// liveOf counts one sequence's runs in class; the caller holds r.mu.
func (r *report) liveOf(class string, up, ours []observation, excused bool) {
	l := r.liveness[class]
	if l == nil {
		l = &liveness{}
		r.liveness[class] = l
	}
	u, k := rescaleCount(up) > 0, rescaleCount(ours) > 0
	l.sequences++
	l.upstream += boolCount(u)
	l.kubeHPA += boolCount(k)
	l.onlyUpstream += boolCount(u && !k)
	l.onlyKubeHPA += boolCount(k && !u)
	l.unexcused += boolCount(u != k && !excused)
}

// livenessTable prints the liveness table.
func (r *report) livenessTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  liveness: sequences that rescale (upstream / kube-hpa / upstream only / kube-hpa only)\n")
	for _, class := range []string{"without faults", "with faults", twinClass} {
		if l := r.liveness[class]; l != nil {
			fmt.Fprintf(&b, "    %-15s %6d sequences: %6d / %6d / %d / %d\n", class, l.sequences, l.upstream, l.kubeHPA, l.onlyUpstream, l.onlyKubeHPA)
		}
	}
	f := r.faults
	fmt.Fprintf(&b, "  faults met by a write of kube-hpa (armed): rollout %d (%d), person's scale %d (%d), re-creation %d (%d), watch lag %d (%d), status conflict %d (%d), competing status writer %d (%d)\n",
		f.Fired.Rollout, f.Armed.Rollout, f.Fired.Person, f.Armed.Person, f.Fired.Recreate, f.Armed.Recreate, f.Fired.Lag, f.Armed.Lag, f.Fired.Status, f.Armed.Status,
		f.Fired.StatusWriter, f.Armed.StatusWriter)
	fmt.Fprintf(&b, "  status writes failed (500 or time-out, both worlds) after a scale write (steps armed): %d (%d), %d of them after a scale to zero\n",
		f.StatusFail.Fired, f.StatusFail.Armed, f.StatusFail.AfterZero)
	fmt.Fprintf(&b, "  passes skipped as stale while the HPA watch was held past a status write (steps armed): kube-hpa %d, upstream %d (%d)\n",
		f.StaleSkips, r.upstreamStaleSkips, f.HPALag)
	fmt.Fprintf(&b, "  handovers to a fresh controller instance, made in each world (steps armed): kube-hpa %d, upstream %d (%d)\n",
		f.Handovers, r.upstreamHandovers, f.HandoversArmed)
	fmt.Fprintf(&b, "  slow fetches (steps armed): %d; answered after %s: kube-hpa %d, upstream %d\n",
		f.SlowFetchArmed, slowFetchDelay, f.SlowAnswers, r.upstreamSlowAnswers)
	fmt.Fprintf(&b, "  fetches of kube-hpa that hung until its budget (steps armed): %d (%d)\n", f.Fired.Hang, f.Armed.Hang)
	fmt.Fprintf(&b, "  scale subresource reads: kube-hpa %d (from its watch otherwise), upstream %d\n", f.ScaleGets, r.upstreamScaleGets)
	return b.String()
}

// unexplainedLiveness lists the classes with sequences in which one
// controller rescaled and the other did not, with no excuse.
func (r *report) unexplainedLiveness() []string {
	var out []string
	for class, l := range r.liveness {
		if l.unexcused > 0 {
			out = append(out, fmt.Sprintf("%s: %d", class, l.unexcused))
		}
	}
	return out
}
