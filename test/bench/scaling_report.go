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
	"slices"
	"strconv"
	"strings"
)

// scalingFigure is one figure of the scaling table: a row per controller,
// a column per size, and a row of each other controller's ratio to the
// first where asked.
type scalingFigure struct {
	label string
	// value is the figure of one controller at a size of setup.
	value  func(c ControllerResult, setup Setup) float64
	format string
	ratio  bool
}

// The memory figures, whose growth between sizes has a table of its own.
var (
	peakRSSFigure   = scalingFigure{label: "peak RSS, MiB", value: func(c ControllerResult, _ Setup) float64 { return mib(c.PeakRSSBytes) }, format: "%.1f", ratio: true}
	steadyRSSFigure = scalingFigure{label: "RSS at the end of the steady window, MiB", value: func(c ControllerResult, _ Setup) float64 { return mib(c.SteadyRSSBytes) }, format: "%.1f"}
)

// scalingFigures are the figures of each controller at each size.
var scalingFigures = []scalingFigure{
	peakRSSFigure,
	steadyRSSFigure,
	{label: "controller CPU s per 1,000 reconciles, steady", value: func(c ControllerResult, _ Setup) float64 { return c.Steady.CPUPer1000 }, format: "%.3f", ratio: true},
	{label: "API requests per reconcile, steady", value: func(c ControllerResult, _ Setup) float64 { return c.Steady.TotalRequests }, format: "%.3f"},
	{label: "reconciles per HPA and sync period, steady (1 = keeps up)", value: func(c ControllerResult, s Setup) float64 { return perPeriod(c.Steady, s.HPAs) }, format: "%.2f"},
	{label: "metric change to scale, p50 s", value: func(c ControllerResult, s Setup) float64 { return orNaN(s.Latency, c.Latency.P50) }, format: "%.2f"},
	{label: "metric change to scale, p99 s", value: func(c ControllerResult, s Setup) float64 { return orNaN(s.Latency, c.Latency.P99) }, format: "%.2f"},
	{label: "HPAs not scaled within the latency time-out", value: func(c ControllerResult, s Setup) float64 { return orNaN(s.Latency, float64(c.Latency.Missed)) }, format: "%.0f"},
	{label: "kube-apiserver CPU in the steady window, cores above idle", value: func(c ControllerResult, _ Setup) float64 { return c.Steady.APIServerCores }, format: "%.2f"},
	{label: "kube-apiserver watch egress in the steady window, KiB/s above idle", value: func(c ControllerResult, _ Setup) float64 { return c.Steady.WatchBytesPerSecond / 1024 }, format: "%.1f"},
	{label: "busiest replica's CPU in the steady window, cores", value: func(c ControllerResult, _ Setup) float64 { return busiestReplicaCores(c.Steady) }, format: "%.3f"},
}

// busiestReplicaCores is the CPU of the busiest of a controller's
// replicas, or of its one process.
func busiestReplicaCores(p Phase) float64 {
	if len(p.ReplicaCores) > 0 {
		return slices.Max(p.ReplicaCores)
	}
	return p.CPUPer1000 * p.ReconcilesPerSecond / 1000
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }

// scalingValue is figure f of controller name at size, NaN where the size
// or the controller was not measured.
func scalingValue(size ScalingSize, name string, f scalingFigure) float64 {
	for _, c := range size.Controllers {
		if c.Name == name && c.Error == "" {
			return f.value(c, size.Setup)
		}
	}
	return math.NaN()
}

// growthPer1000 is, between each two consecutive sizes, how much values
// grew per 1,000 more HPAs; NaN where either value is.
func growthPer1000(hpas []int, values []float64) []float64 {
	if len(hpas) < 2 {
		return nil
	}
	out := make([]float64, len(hpas)-1)
	for i := range out {
		out[i] = (values[i+1] - values[i]) / (float64(hpas[i+1]-hpas[i]) / 1000)
	}
	return out
}

// WriteScalingTable prints the scaling scenario: each figure of each
// controller at each size, with the ratios of the other controllers to
// the first for peak RSS and CPU; then the memory growth per 1,000 more
// HPAs between consecutive sizes; then what kept a size or a controller
// from being measured.
func WriteScalingTable(w io.Writer, m Machine, res *ScalingResult) error {
	fmt.Fprintf(w, "Scaling: the default workload at growing sizes, %d pods per Deployment, each size on a cluster of its own (%s)\n",
		res.PodsPerHPA, ScenarioScaling)
	if len(res.Sizes) == 0 {
		_, err := fmt.Fprintln(w, "(no size measured)")
		return err
	}
	s := res.Sizes[0].Setup
	fmt.Fprintf(w, "%d workers, kube-api-qps %.0f, burst %d, sync %s, steady window %s; %d cores (%s), %.1f GiB, %s\n\n",
		s.Workers, s.QPS, s.Burst, s.SyncPeriod, s.Window, m.Cores, m.CPUModel, m.MemoryGiB, m.GoVersion)
	names := scalingControllers(res)
	hpas := make([]int, len(res.Sizes))
	header := []string{"figure"}
	for i, size := range res.Sizes {
		hpas[i] = size.Setup.HPAs
		header = append(header, strconv.Itoa(size.Setup.HPAs)+" HPAs")
	}
	lines := [][]string{header}
	perSize := func(label, format string, value func(ScalingSize) float64) []string {
		cells := []string{label}
		for _, size := range res.Sizes {
			cells = append(cells, formatValue(format, value(size)))
		}
		return cells
	}
	lines = append(lines,
		perSize("pods", "%.0f", func(size ScalingSize) float64 { return float64(size.Pods) }),
		perSize("workload ready after, s", "%.0f", func(size ScalingSize) float64 { return orNaN(size.WorkloadReadySeconds > 0, size.WorkloadReadySeconds) }),
		perSize("kube-apiserver CPU, idle, cores", "%.2f", func(size ScalingSize) float64 {
			return orNaN(size.Baseline.WindowSeconds > 0, size.Baseline.APIServerCores)
		}),
	)
	for _, f := range scalingFigures {
		lines = append(lines, []string{f.label})
		values := make([][]float64, len(names))
		for j, name := range names {
			values[j] = make([]float64, len(res.Sizes))
			for i, size := range res.Sizes {
				values[j][i] = scalingValue(size, name, f)
			}
			lines = append(lines, valueCells("  "+name, f.format, values[j]))
		}
		if f.ratio {
			lines = append(lines, ratioLines(names, values)...)
		}
	}
	if _, err := io.WriteString(w, alignWithHeadings(lines)); err != nil {
		return err
	}
	if len(res.Sizes) > 1 {
		fmt.Fprintln(w)
		if _, err := io.WriteString(w, alignWithHeadings(growthLines(res, names, hpas))); err != nil {
			return err
		}
	}
	writeScalingNotes(w, res)
	return nil
}

// growthLines lay out the memory growth per 1,000 more HPAs, a column per
// pair of consecutive sizes.
func growthLines(res *ScalingResult, names []string, hpas []int) [][]string {
	header := []string{"MiB per 1,000 more HPAs"}
	for i := 1; i < len(hpas); i++ {
		header = append(header, fmt.Sprintf("%d to %d HPAs", hpas[i-1], hpas[i]))
	}
	lines := [][]string{{fmt.Sprintf("Memory growth between consecutive sizes, per 1,000 more HPAs (%d more pods)", 1000*res.PodsPerHPA)}, header}
	for _, f := range []scalingFigure{peakRSSFigure, steadyRSSFigure} {
		lines = append(lines, []string{f.label})
		growth := make([][]float64, len(names))
		for j, name := range names {
			values := make([]float64, len(res.Sizes))
			for i, size := range res.Sizes {
				values[i] = scalingValue(size, name, f)
			}
			growth[j] = growthPer1000(hpas, values)
			lines = append(lines, valueCells("  "+name, "%.1f", growth[j]))
		}
		if f.ratio {
			lines = append(lines, ratioLines(names, growth)...)
		}
	}
	return lines
}

// alignWithHeadings aligns the lines of several cells as alignColumns
// does, and writes each line of one cell, a figure's heading, on a line of
// its own before the next, outside the columns.
func alignWithHeadings(lines [][]string) string {
	var rows [][]string
	headings := map[int]string{} // row index -> the headings before it
	for _, cells := range lines {
		if len(cells) == 1 {
			headings[len(rows)] += cells[0] + "\n"
			continue
		}
		rows = append(rows, cells)
	}
	var b strings.Builder
	for i, line := range strings.SplitAfter(alignColumns(rows), "\n") {
		b.WriteString(headings[i] + line)
	}
	return b.String()
}

// valueCells is a row of values after its label.
func valueCells(label, format string, values []float64) []string {
	cells := []string{label}
	for _, v := range values {
		cells = append(cells, formatValue(format, v))
	}
	return cells
}

// ratioLines are the rows of each other controller's values over the
// first's, column by column.
func ratioLines(names []string, values [][]float64) [][]string {
	var lines [][]string
	for j := 1; j < len(names); j++ {
		cells := []string{"  " + names[j] + "/" + names[0]}
		for i, v := range values[j] {
			cells = append(cells, formatRatio(v, values[0][i]))
		}
		lines = append(lines, cells)
	}
	return lines
}

// writeScalingNotes says what the table alone does not: which size or
// controller was not measured and why, where a warm-up ended early, and
// how the figures were taken.
func writeScalingNotes(w io.Writer, res *ScalingResult) {
	fmt.Fprintln(w)
	for _, size := range res.Sizes {
		if size.Error != "" {
			fmt.Fprintf(w, "note: %d HPAs: %s\n", size.Setup.HPAs, size.Error)
		}
		for _, c := range size.Controllers {
			switch {
			case c.Error != "":
				fmt.Fprintf(w, "note: %d HPAs, %s: %s\n", size.Setup.HPAs, c.Name, c.Error)
			case !c.WarmUp.Complete:
				fmt.Fprintf(w, "note: %d HPAs, %s had reconciled %.0f times when the warm-up limit of %s ended; its window began one sync period later, without a full pass behind it.\n",
					size.Setup.HPAs, c.Name, c.WarmUp.Reconciles, size.Setup.WarmUpLimit)
			}
		}
	}
	fmt.Fprintln(w, "Each controller runs alone, on the cluster of the size; RSS from /proc (VmHWM, VmRSS); kube-apiserver CPU less the idle cluster's (its own row).")
	if s := res.Sizes[0].Setup; s.Latency {
		fmt.Fprintf(w, "Metric change to scale: %d HPAs' metrics raised after the steady window, asking for %d more replicas each, as in the default scenario.\n",
			s.LatencyHPAs, latencyStep)
	}
}

// orNaN is v when ok, NaN (printed "-") when not.
func orNaN(ok bool, v float64) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}
