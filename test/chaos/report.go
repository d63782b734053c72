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

package chaos

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Report is what a run found.
type Report struct {
	Options Options `json:"options"`
	// Start is when the injections began, Calm when they ended (after the
	// last recovery), End when the last checks were made.
	Start, Calm, End time.Time
	Windows          []window `json:"-"`
	LogDir           string
	Violations       []Violation
	// Passes are the fetches of the HPAs' series the adapter saw between
	// Start and End; LongestGap the longest wait for one not excused.
	Passes     int
	LongestGap time.Duration
	// ControllerPasses are the reconciliations the replicas counted, by
	// their error label.
	ControllerPasses map[string]float64
	HandScales       int64
	// FallbackEngagements counts the ExternalMetricFallbackActive=True
	// transitions seen, in FallbackCycles cycles of the metric's failure;
	// ZeroHeld the HPAs seen ScaledToZero, which held it to the end.
	FallbackEngagements, FallbackCycles, ZeroHeld int
	Restarts                                      int
	KilledReplicas                                int
	ExpectedExits                                 []string
	Events                                        map[string]int
	// TwoLeaderScrapes counts the scrapes of /metrics that found both
	// replicas reporting the lease, of Scrapes.
	TwoLeaderScrapes, Scrapes int
}

// Count is the number of violations.
func (rep *Report) Count() int { return len(rep.Violations) }

// String is the table printed at the end, then the violations, then
// `violations: N`.
func (rep *Report) String() string {
	var b strings.Builder
	o := rep.Options
	fmt.Fprintf(&b, "chaos run: %d HPAs (%d by hand, %d by hand on Prometheus, %d to zero, %d with a fallback), 2 replicas, sync period %v\n",
		o.HPAs, o.HPAs-o.ZeroHPAs-o.FallbackHPAs-o.PromHPAs, o.PromHPAs, o.ZeroHPAs, o.FallbackHPAs, o.SyncPeriod)
	if len(o.ControllerFlags) > 0 {
		fmt.Fprintf(&b, "replicas' extra flags: %s\n", strings.Join(o.ControllerFlags, " "))
	}
	fmt.Fprintf(&b, "injections from %s for %v, checks until %s (logs: %s)\n\n",
		rep.Start.UTC().Format("15:04:05"), rep.Calm.Sub(rep.Start).Round(time.Second), rep.End.UTC().Format("15:04:05"), rep.LogDir)

	b.WriteString("injected                                   at        recovered in\n")
	for _, w := range rep.Windows {
		fmt.Fprintf(&b, "  %-40s %s  %8v  %s\n", w.fault, w.start.UTC().Format("15:04:05"), w.end.Sub(w.start).Round(100*time.Millisecond), w.detail)
	}
	fmt.Fprintf(&b, "  %-40s %d\n", "scales by hand", rep.HandScales)
	fmt.Fprintf(&b, "  %-40s %d\n\n", "replicas killed by the run", rep.KilledReplicas)

	counts := map[Invariant]int{}
	objects := map[Invariant]map[string]bool{}
	for _, v := range rep.Violations {
		counts[v.Invariant]++
		if objects[v.Invariant] == nil {
			objects[v.Invariant] = map[string]bool{}
		}
		objects[v.Invariant][v.Object] = true
	}
	b.WriteString("invariant                                                                   violations\n")
	for _, inv := range invariants() {
		fmt.Fprintf(&b, "  %-74s %d\n", inv, counts[inv])
	}
	b.WriteString("\nfigures\n")
	fmt.Fprintf(&b, "  %-50s %d in %d failures of the metric\n", "fallback engagements seen", rep.FallbackEngagements, rep.FallbackCycles)
	fmt.Fprintf(&b, "  %-50s %d\n", "HPAs ScaledToZero at the end", rep.ZeroHeld)
	fmt.Fprintf(&b, "  %-50s %d (longest wait not excused by a disruption: %v)\n", "passes seen at the adapter", rep.Passes, rep.LongestGap.Round(time.Millisecond))
	var labels []string
	for l := range rep.ControllerPasses {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	var parts []string
	for _, l := range labels {
		parts = append(parts, fmt.Sprintf("error=%s: %.0f", l, rep.ControllerPasses[l]))
	}
	fmt.Fprintf(&b, "  %-50s %s\n", "passes counted by the replicas' /metrics", strings.Join(parts, ", "))
	fmt.Fprintf(&b, "  %-50s %d (expected exits in disruptions: %d)\n", "replica restarts", rep.Restarts, len(rep.ExpectedExits))
	for _, e := range rep.ExpectedExits {
		fmt.Fprintf(&b, "    %s\n", e)
	}
	fmt.Fprintf(&b, "  %-50s %d of %d\n", "scrapes with both replicas reporting the lease", rep.TwoLeaderScrapes, rep.Scrapes)
	var reasons []string
	for r, n := range rep.Events {
		reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(reasons)
	fmt.Fprintf(&b, "  %-50s %s\n", "Warning events by reason", strings.Join(reasons, ", "))

	if len(rep.Violations) > 0 {
		b.WriteString("\nviolations (at most 20 per invariant)\n")
		shown := map[Invariant]int{}
		for _, v := range rep.Violations {
			if shown[v.Invariant]++; shown[v.Invariant] > 20 {
				continue
			}
			fmt.Fprintf(&b, "  [%s] %s %s: %s\n", v.Invariant, v.At.UTC().Format("15:04:05"), v.Object, v.Detail)
		}
	}
	fmt.Fprintf(&b, "\nviolations: %d\n", rep.Count())
	return b.String()
}
