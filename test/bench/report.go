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
	"sort"
	"strings"
	"time"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// row is one line of the side-by-side table: a figure per controller.
type row struct {
	label  string
	values []float64
	format string
	// indent marks a breakdown of the row above.
	indent bool
	// ratioFloor is the smallest first value a ratio is printed against:
	// a request kind the first controller makes less often than that is
	// baseline noise, and a ratio to it means nothing.
	ratioFloor float64
}

// cells are r's columns: its label (indented for a breakdown), a value
// per controller, and the ratio of each other controller's to the first's
// ("-" below ratioFloor).
func (r row) cells() []string {
	label := r.label
	if r.indent {
		label = "  " + label
	}
	cells := []string{label}
	for _, v := range r.values {
		cells = append(cells, formatValue(r.format, v))
	}
	for _, v := range r.values[1:] {
		if math.Abs(r.values[0]) < r.ratioFloor {
			cells = append(cells, "-")
			continue
		}
		cells = append(cells, formatRatio(v, r.values[0]))
	}
	return cells
}

// requestRowThreshold hides request kinds that neither controller makes
// once per hundred reconciles: noise left by the baseline subtraction.
const requestRowThreshold = 0.01

// tableRows lays out the figures of one scenario, one value per
// controller; the rows of a phase the scenario did not measure are left
// out.
func tableRows(sr ScenarioResult) []row {
	cs := sr.Controllers
	pick := func(f func(ControllerResult) float64) []float64 {
		out := make([]float64, len(cs))
		for i, c := range cs {
			out[i] = f(c)
		}
		return out
	}
	s := sr.Setup
	words := metricsWords(s)
	sat := func(r ...row) []row {
		if s.Saturation {
			return r
		}
		return nil
	}
	rows := []row{
		{label: "reconciles/s, steady (sync " + s.SyncPeriod + ")", values: pick(func(c ControllerResult) float64 { return c.Steady.ReconcilesPerSecond }), format: "%.1f"},
		{label: "reconciles per HPA and sync period, steady (1 = keeps up)", values: pick(func(c ControllerResult) float64 { return perPeriod(c.Steady, s.HPAs) }), format: "%.2f"},
		{label: "mean wait in the HPA queue once due, ms, steady", values: pick(func(c ControllerResult) float64 { return c.Steady.QueueWaitSeconds * 1000 }), format: "%.1f"},
		{label: "HPA queue depth at the end of the steady window", values: pick(func(c ControllerResult) float64 { return c.Steady.QueueDepth }), format: "%.0f"},
		{label: "first pass over every HPA after start, s (- = not in the warm-up)", values: pick(firstPassSeconds), format: "%.0f"},
		{label: "controller CPU s per 1,000 reconciles, steady", values: pick(func(c ControllerResult) float64 { return c.Steady.CPUPer1000 }), format: "%.3f"},
	}
	rows = append(rows, sat(
		row{label: "controller CPU s per 1,000 reconciles, saturated", values: pick(func(c ControllerResult) float64 { return c.Saturation.CPUPer1000 }), format: "%.3f"},
		row{label: "reconciles/s at saturation (sync " + s.SaturationSyncPeriod + ")", values: pick(func(c ControllerResult) float64 { return c.Saturation.ReconcilesPerSecond }), format: "%.1f"},
	)...)
	rows = append(rows,
		row{label: "peak RSS, MiB", values: pick(func(c ControllerResult) float64 { return float64(c.PeakRSSBytes) / (1 << 20) }), format: "%.1f"},
		row{label: "API requests per reconcile, steady", values: pick(func(c ControllerResult) float64 { return c.Steady.TotalRequests }), format: "%.3f"},
		row{label: words.proxied, values: pick(func(c ControllerResult) float64 { return c.Steady.FetchesPerReconcile }), format: "%.3f", indent: true},
	)
	rows = append(rows, requestRows(cs, func(c ControllerResult) Phase { return c.Steady })...)
	rows = append(rows, sat(
		row{label: "API requests per reconcile, saturated", values: pick(func(c ControllerResult) float64 { return c.Saturation.TotalRequests }), format: "%.3f"},
	)...)
	rows = append(rows,
		row{label: words.fetches + " per reconcile, steady", values: pick(func(c ControllerResult) float64 { return c.Steady.FetchesPerReconcile }), format: "%.3f"},
	)
	rows = append(rows, sat(
		row{label: words.fetches + " per reconcile, saturated", values: pick(func(c ControllerResult) float64 { return c.Saturation.FetchesPerReconcile }), format: "%.3f"},
	)...)
	rows = append(rows,
		row{label: "kube-apiserver CPU s per 1,000 reconciles, steady", values: pick(func(c ControllerResult) float64 { return c.Steady.APIServerCPUPer1000 }), format: "%.3f"},
		row{label: words.provider + " CPU s per 1,000 reconciles, steady", values: pick(func(c ControllerResult) float64 { return c.Steady.AdapterCPUPer1000 }), format: "%.3f"},
	)
	if s.Latency {
		rows = append(rows,
			row{label: fmt.Sprintf("metric change to scale, p50 s (%d HPAs, %d changes per period)", s.LatencyHPAs, min(maxLatencyTrials, s.LatencyHPAs)), values: pick(func(c ControllerResult) float64 { return c.Latency.P50 }), format: "%.2f"},
			row{label: "metric change to scale, p99 s", values: pick(func(c ControllerResult) float64 { return c.Latency.P99 }), format: "%.2f"},
			row{label: "HPAs not scaled within the latency time-out", values: pick(func(c ControllerResult) float64 { return float64(c.Latency.Missed) }), format: "%.0f"},
		)
	}
	rows = append(rows,
		row{label: "machine CPU busy, steady, % of all cores", values: pick(func(c ControllerResult) float64 { return c.Steady.MachineBusyPercent }), format: "%.0f"},
	)
	rows = append(rows, sat(
		row{label: "machine CPU busy, saturated, % of all cores", values: pick(func(c ControllerResult) float64 { return c.Saturation.MachineBusyPercent }), format: "%.0f"},
	)...)
	rows = append(rows,
		row{label: "of which not the benchmark's, steady", values: pick(func(c ControllerResult) float64 { return c.Steady.OtherLoadPercent }), format: "%.0f", indent: true},
	)
	return append(rows, sat(
		row{label: "of which not the benchmark's, saturated", values: pick(func(c ControllerResult) float64 { return c.Saturation.OtherLoadPercent }), format: "%.0f", indent: true},
	)...)
}

// firstPassSeconds is the warm-up's length when it saw a full pass, NaN
// (printed "-") when the warm-up limit ended it first.
func firstPassSeconds(c ControllerResult) float64 {
	if !c.WarmUp.Complete {
		return math.NaN()
	}
	return c.WarmUp.Seconds
}

// requestRows breaks the requests per reconcile down by verb and resource.
func requestRows(cs []ControllerResult, phase func(ControllerResult) Phase) []row {
	keys := map[string]bool{}
	for _, c := range cs {
		for k, v := range phase(c).RequestsPerReconcile {
			if math.Abs(v) >= requestRowThreshold {
				keys[k] = true
			}
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	rows := make([]row, 0, len(sorted))
	for _, k := range sorted {
		values := make([]float64, len(cs))
		for i, c := range cs {
			values[i] = phase(c).RequestsPerReconcile[k]
		}
		rows = append(rows, row{label: k, values: values, format: "%.3f", indent: true, ratioFloor: requestRowThreshold})
	}
	return rows
}

// scenarioTitles head each scenario's table.
var scenarioTitles = map[string]string{
	ScenarioDefault:         "Default workload: half of the HPAs share external metrics in groups",
	ScenarioDistinct:        "Distinct metrics: every HPA has an external metric of its own (nothing to share)",
	ScenarioThrottled:       "Default client limits of kube-controller-manager",
	ScenarioThrottledShared: "Default client limits of kube-controller-manager, every HPA sharing a metric in groups (the fetches fit the limit)",
	ScenarioCPU:             "CPU utilization: every HPA on its pods' CPU at 50% of their request, read from metrics-server",
}

// WriteReport prints every table of res: the default scenario's, the
// other scenarios' (each followed by its pass gaps when it read them; the
// slow-tenants scenario as its own small table), the sync period mix, the
// ramp, then the scaling scenario.
func WriteReport(w io.Writer, res *Result) error {
	var tables []func() error
	if res.Name != "" {
		tables = append(tables, func() error { return WriteTable(w, res.Machine, res.ScenarioResult) })
	}
	for _, sr := range res.Scenarios {
		if isSlowTenantsScenario(sr.Name) {
			tables = append(tables, func() error { return WriteSlowTenantsTable(w, res.Machine, sr) })
			continue
		}
		tables = append(tables, func() error { return WriteTable(w, res.Machine, sr) })
		if names, _ := gapControllers(sr); len(names) > 0 {
			tables = append(tables, func() error { return WritePassGapTable(w, sr) })
		}
	}
	if res.Mix != nil {
		tables = append(tables, func() error { return WriteMixTable(w, res) })
	}
	if res.Ramp != nil {
		tables = append(tables, func() error { return WriteRampTable(w, res) })
	}
	if res.Scaling != nil {
		tables = append(tables, func() error { return WriteScalingTable(w, res.Machine, res.Scaling) })
	}
	for i, table := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := table(); err != nil {
			return err
		}
	}
	return nil
}

// WriteTable prints one scenario's side-by-side table, with the ratio of
// each other controller to the first (kube-hpa over upstream in the
// default order), and the notes that tell how to read it.
func WriteTable(w io.Writer, m Machine, sr ScenarioResult) error {
	s := sr.Setup
	if title := scenarioTitles[sr.Name]; title != "" {
		fmt.Fprintf(w, "%s (%s)\n", title, sr.Name)
	}
	fmt.Fprintf(w, "%d HPAs (%s), %d workers, kube-api-qps %.0f, burst %d; %d cores (%s), %.1f GiB, %s\n\n",
		s.HPAs, metricsWords(s).workload(s), s.Workers, s.QPS, s.Burst, m.Cores, m.CPUModel, m.MemoryGiB, m.GoVersion)
	if len(sr.Controllers) == 0 {
		_, err := fmt.Fprintln(w, "(no controller measured)")
		return err
	}
	header := []string{"figure"}
	for _, c := range sr.Controllers {
		header = append(header, c.Name)
	}
	for _, c := range sr.Controllers[1:] {
		header = append(header, c.Name+"/"+sr.Controllers[0].Name)
	}
	lines := [][]string{header}
	for _, r := range tableRows(sr) {
		lines = append(lines, r.cells())
	}
	if _, err := io.WriteString(w, alignColumns(lines)); err != nil {
		return err
	}
	writeNotes(w, sr)
	return nil
}

// writeNotes says what the table alone does not: which figures are
// bounds, where a warm-up ended early, and what the request rows count.
func writeNotes(w io.Writer, sr ScenarioResult) {
	s := sr.Setup
	fmt.Fprintln(w)
	for _, c := range sr.Controllers {
		if s.Saturation && !c.Saturation.Saturated {
			fmt.Fprintf(w, "note: %s kept up with every HPA at %s: its saturation figure is a lower bound.\n", c.Name, s.SaturationSyncPeriod)
		}
		if !c.WarmUp.Complete {
			fmt.Fprintf(w, "note: %s had reconciled %.0f times for %d HPAs when the warm-up limit of %s ended; its window began one sync period later, without a full pass behind it.\n",
				c.Name, c.WarmUp.Reconciles, s.HPAs, s.WarmUpLimit)
		}
	}
	words := metricsWords(s)
	fmt.Fprintf(w, "%s would be %.3f fetches per reconcile.\n", words.ideal, s.IdealFetchesPerReconcile)
	fmt.Fprintf(w, "API requests: kube-apiserver's apiserver_request_total less an idle baseline of %.2f requests/s (it has no client label; one controller runs at a time),\n"+
		"plus the %s, which it does not count there. Steady windows (%s) start a sync period after the first pass:\n"+
		"a controller's LISTs and WATCHes at start (kube-hpa's of the apps kinds and ReplicationControllers, whose scale it reads from watches) are one-off and fall before them,\n"+
		"and no HPA scales in them (every metric sits at its target), so no PUT of a scale either; the latency phase, after the window, makes those.\n",
		sr.Baseline.TotalRequests, words.proxiedNote, s.Window)
	if words.resource {
		fmt.Fprintln(w, "CPU readings move by a hair from one scrape to the next (kwok's counters over metrics-server's window), so a pass writes status\n"+
			"whenever the utilization it reports changes: the PUTs of status above, which an External metric at its target does not make.")
	}
}

// formatValue prints v, or "-" for a figure that was not measured (NaN).
// A value that rounds to zero prints as zero: a "-0.000" left by the
// baseline subtraction reads as a figure of its own.
func formatValue(format string, v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	out := fmt.Sprintf(format, v)
	if strings.Trim(out, "-0.") == "" {
		return fmt.Sprintf(format, 0.0)
	}
	return out
}

// alignColumns pads the first column on the right (labels) and the others
// on the left (numbers), two spaces apart.
func alignColumns(lines [][]string) string {
	var widths []int
	for _, cells := range lines {
		for i, c := range cells {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, cells := range lines {
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-len(c))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// perPeriod is how many times each HPA was reconciled per sync period: 1
// when the controller keeps up, less when a backlog grows. Controllers
// reconcile in bursts (every HPA listed at start is due at once), and a
// window boundary that cuts a burst skews it by up to one burst in the
// window's count.
func perPeriod(p Phase, hpas int) float64 {
	sync, err := time.ParseDuration(p.SyncPeriod)
	if err != nil || hpas == 0 {
		return 0
	}
	return p.ReconcilesPerSecond * sync.Seconds() / float64(hpas)
}

// formatRatio prints ours/upstream, or "-" where it means nothing.
func formatRatio(ours, upstream float64) string {
	if upstream == 0 || math.IsNaN(ours/upstream) || math.IsInf(ours/upstream, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", ours/upstream)
}

// metricsNames are what the table calls the scenario's metric fetches and
// their provider, by the API the HPAs read (Setup.MetricsAPI).
type metricsNames struct {
	fetches, proxied, proxiedNote, provider, ideal string
	resource                                       bool
}

func metricsWords(s Setup) metricsNames {
	if s.MetricsAPI == localcluster.MetricsGroup {
		return metricsNames{
			fetches:     "resource metric fetches (PodMetrics lists)",
			proxied:     "LIST metrics.k8s.io pods (proxied; metrics-server's count)",
			proxiedNote: "PodMetrics lists it proxies to metrics-server",
			provider:    "metrics-server",
			ideal:       "One PodMetrics list per HPA and sync period",
			resource:    true,
		}
	}
	return metricsNames{
		fetches:     "external metric fetches",
		proxied:     "GET external.metrics.k8s.io (proxied; adapter's count)",
		proxiedNote: "external metric requests it proxies to the adapter",
		provider:    "metrics adapter",
		ideal:       "One fetch per distinct external metric and sync period",
	}
}

// workload says what the HPAs scale on, for the table's first line.
func (n metricsNames) workload(s Setup) string {
	if n.resource {
		return "CPU utilization through metrics-server"
	}
	return fmt.Sprintf("%d distinct external metrics", s.DistinctMetrics)
}
