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

package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// The small tables of the fetch times (passgap.go): the pass gaps of a
// scenario that read them, and the slow-tenants scenario.

// writeSmallTable prints rows of one value per controller, with the ratio
// of each other controller to the first. A row without values is a
// heading, printed whole on a line of its own, outside the columns.
func writeSmallTable(w io.Writer, first string, names []string, rows []row) error {
	header := append([]string{first}, names...)
	for _, n := range names[1:] {
		header = append(header, n+"/"+names[0])
	}
	lines := [][]string{header}
	headings := map[int]string{} // line index among lines -> heading before it
	for _, r := range rows {
		if len(r.values) == 0 {
			headings[len(lines)] += r.label + "\n"
			continue
		}
		lines = append(lines, r.cells())
	}
	var b strings.Builder
	for i, line := range strings.SplitAfter(alignColumns(lines), "\n") {
		b.WriteString(headings[i] + line)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// gapControllers are the controllers of sr that read fetch times, and
// a picker of one figure of theirs.
func gapControllers(sr ScenarioResult) ([]string, func(func(PassGaps) float64) []float64) {
	var names []string
	var gaps []PassGaps
	for _, c := range sr.Controllers {
		if c.PassGaps != nil {
			names = append(names, c.Name)
			gaps = append(gaps, *c.PassGaps)
		}
	}
	return names, func(f func(PassGaps) float64) []float64 {
		out := make([]float64, len(gaps))
		for i, g := range gaps {
			out[i] = f(g)
		}
		return out
	}
}

// periods turns seconds into sync periods of sr.
func periods(sr ScenarioResult) func(float64) float64 {
	sync, err := time.ParseDuration(sr.Setup.SyncPeriod)
	return func(s float64) float64 {
		if err != nil || sync <= 0 {
			return math.NaN()
		}
		return s / sync.Seconds()
	}
}

// WritePassGapTable prints the gaps between two fetches of one HPA's
// metric in sr's steady window; nothing when no controller read them.
func WritePassGapTable(w io.Writer, sr ScenarioResult) error {
	names, pick := gapControllers(sr)
	if len(names) == 0 {
		return nil
	}
	s, inPeriods := sr.Setup, periods(sr)
	fmt.Fprintf(w, "Pass gaps (%s): time between two fetches of one HPA's external metric (one fetch per pass), steady window of %s, sync period %s\n\n",
		sr.Name, s.Window, s.SyncPeriod)
	rows := []row{
		{label: "largest gap, s", values: pick(func(p PassGaps) float64 { return p.MaxSeconds }), format: "%.1f"},
		{label: "largest gap, sync periods (goal for kube-hpa: 1 and a small margin)", values: pick(func(p PassGaps) float64 { return inPeriods(p.MaxSeconds) }), format: "%.2f"},
		{label: "p99 gap, s", values: pick(func(p PassGaps) float64 { return p.P99Seconds }), format: "%.1f"},
		{label: "p99 gap, sync periods", values: pick(func(p PassGaps) float64 { return inPeriods(p.P99Seconds) }), format: "%.2f"},
		{label: "gaps measured", values: pick(func(p PassGaps) float64 { return float64(p.Gaps) }), format: "%.0f"},
		{label: "metrics without a fetch in the window", values: pick(func(p PassGaps) float64 { return float64(p.Unfetched) }), format: "%.0f"},
	}
	if err := writeSmallTable(w, "figure", names, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nFrom the adapter's fetch times of the %.0f metrics: a gap ends in the window (the first fetch after a controller's start counts from the start);\n"+
		"the largest also counts a metric still unasked at the window's end (time since its last fetch, a lower bound).\n", pick(func(p PassGaps) float64 { return float64(p.Series) })[0])
	return err
}

// WriteSlowTenantsTable prints the slow-tenants scenario: how many healthy
// HPAs each controller reconciled per sync period while a few waited on
// a slow metric.
func WriteSlowTenantsTable(w io.Writer, m Machine, sr ScenarioResult) error {
	s := sr.Setup
	fmt.Fprintf(w, "Slow tenants (%s): %d HPAs, each with an external metric of its own, %d of them %s\n",
		sr.Name, s.HPAs, s.SlowHPAs, slowProviderWords(s))
	fmt.Fprintf(w, "%d workers, sync period %s, steady window %s after a warm-up of at most %s; %d cores (%s)\n\n",
		s.Workers, s.SyncPeriod, s.Window, s.WarmUpLimit, m.Cores, m.CPUModel)
	names, pick := gapControllers(sr)
	if len(names) == 0 {
		_, err := fmt.Fprintln(w, "(no controller measured)")
		return err
	}
	// each picks a figure of the controllers of names.
	each := func(f func(ControllerResult) float64) []float64 {
		var out []float64
		for _, c := range sr.Controllers {
			if c.PassGaps != nil {
				out = append(out, f(c))
			}
		}
		return out
	}
	perHPA := each(func(c ControllerResult) float64 { return perPeriod(c.Steady, s.HPAs) })
	firstPass := each(firstPassSeconds)
	rows := []row{
		{label: "healthy HPAs reconciled per sync period, mean share (goal 1.00)", values: pick(PassGaps.MeanShare), format: "%.2f"},
		{label: "lowest period", values: pick(PassGaps.MinShare), format: "%.2f", indent: true},
		{label: "healthy HPAs without a fetch in the window", values: pick(func(p PassGaps) float64 { return float64(p.Unfetched) }), format: "%.0f"},
		{label: "largest gap between fetches of a healthy HPA's metric, s", values: pick(func(p PassGaps) float64 { return p.MaxSeconds }), format: "%.1f"},
		{label: "p99 gap, s", values: pick(func(p PassGaps) float64 { return p.P99Seconds }), format: "%.1f"},
		{label: "fetches of the slow metrics begun in the window", values: pick(func(p PassGaps) float64 { return float64(p.SlowFetches) }), format: "%.0f"},
	}
	rows = append(rows, slowFaultRows(s, each)...)
	rows = append(rows,
		row{label: "reconciles per HPA and sync period, all HPAs", values: perHPA, format: "%.2f"},
		// Before the steady window: a controller that learns which HPAs
		// are slow from their last pass has no such pass at its start.
		row{label: "first pass over every HPA after start, s (- = not in the warm-up)", values: firstPass, format: "%.0f"},
	)
	if err := writeSmallTable(w, "figure", names, rows); err != nil {
		return err
	}
	for _, c := range sr.Controllers {
		if !c.WarmUp.Complete {
			fmt.Fprintf(w, "\nnote: %s had reconciled %.0f times for %d HPAs when the warm-up limit of %s ended.", c.Name, c.WarmUp.Reconciles, s.HPAs, s.WarmUpLimit)
		}
	}
	_, err := fmt.Fprintf(w, "\nA healthy HPA counts as reconciled in a period when its metric was fetched in it (the adapter's fetch times), the window cut into whole sync periods from its start.\n%s",
		slowFaultNotes(s))
	return err
}
