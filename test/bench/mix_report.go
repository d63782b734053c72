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
	"time"
)

// statusWrite is the request key (requestKey) of an extended HPA's status
// update.
const statusWrite = "PUT autoscaling.kube-hpa.io/horizontalpodautoscalers/status"

// mixRows lays out the sync period mix: one value per window (gates off,
// gates on, mix).
func mixRows(res *Result) []row {
	m, s := res.Mix, res.Setup
	phases := []Phase{m.GatesOff, m.GatesOn, m.Mix}
	pick := func(f func(Phase) float64) []float64 {
		out := make([]float64, len(phases))
		for i, p := range phases {
			out[i] = f(p)
		}
		return out
	}
	period, _ := time.ParseDuration(s.SyncPeriod)
	fastPeriod, _ := time.ParseDuration(m.FastPeriod)
	uniform := expectedRate(s.HPAs, 0, fastPeriod, period)
	rows := []row{
		{label: "HPAs at " + m.FastPeriod, values: []float64{0, 0, float64(m.FastHPAs)}, format: "%.0f"},
		{label: "reconciles/s the periods ask for", values: []float64{uniform, uniform, expectedRate(s.HPAs, m.FastHPAs, fastPeriod, period)}, format: "%.1f"},
		{label: "reconciles/s measured", values: pick(func(p Phase) float64 { return p.ReconcilesPerSecond }), format: "%.1f"},
		{label: "mean wait in the HPA queue once due, ms", values: pick(func(p Phase) float64 { return p.QueueWaitSeconds * 1000 }), format: "%.1f"},
		{label: "controller CPU s per 1,000 reconciles", values: pick(func(p Phase) float64 { return p.CPUPer1000 }), format: "%.3f"},
		{label: "controller CPU, % of one core", values: pick(func(p Phase) float64 { return p.CPUPer1000 * p.ReconcilesPerSecond / 10 }), format: "%.1f"},
		// Always shown, even at zero: the decision trace must add no
		// status write in steady state.
		{label: "HPA status writes per reconcile", values: pick(func(p Phase) float64 { return p.RequestsPerReconcile[statusWrite] }), format: "%.3f"},
		{label: "API requests per reconcile", values: pick(func(p Phase) float64 { return p.TotalRequests }), format: "%.3f"},
		{label: "GET external.metrics.k8s.io (proxied; adapter's count)", values: pick(func(p Phase) float64 { return p.FetchesPerReconcile }), format: "%.3f", indent: true},
	}
	rows = append(rows, requestRows([]ControllerResult{{Steady: m.GatesOff}, {Steady: m.GatesOn}, {Steady: m.Mix}},
		func(c ControllerResult) Phase { return c.Steady })...)
	return append(rows,
		row{label: "kube-apiserver CPU s per 1,000 reconciles", values: pick(func(p Phase) float64 { return p.APIServerCPUPer1000 }), format: "%.3f"},
		row{label: "metrics adapter CPU s per 1,000 reconciles", values: pick(func(p Phase) float64 { return p.AdapterCPUPer1000 }), format: "%.3f"},
		row{label: "machine CPU busy, % of all cores", values: pick(func(p Phase) float64 { return p.MachineBusyPercent }), format: "%.0f"},
		row{label: "of which not the benchmark's", values: pick(func(p Phase) float64 { return p.OtherLoadPercent }), format: "%.0f", indent: true},
	)
}

// WriteMixTable prints the sync period mix, with the ratios of the gates
// on to off and of the mix to the gates on; nothing when it was not
// measured.
func WriteMixTable(w io.Writer, res *Result) error {
	if res.Mix == nil {
		return nil
	}
	s := res.Setup
	fmt.Fprintf(w, "Sync period mix: kube-hpa alone on %d extended HPAs, global period %s\n\n", s.HPAs, s.SyncPeriod)
	lines := [][]string{{"figure", "gates off", "gates on", "mix", "on/off", "mix/on"}}
	for _, r := range mixRows(res) {
		label := r.label
		if r.indent {
			label = "  " + label
		}
		cells := []string{label}
		for _, v := range r.values {
			cells = append(cells, fmt.Sprintf(r.format, v))
		}
		cells = append(cells, formatRatio(r.values[1], r.values[0]), formatRatio(r.values[2], r.values[1]))
		lines = append(lines, cells)
	}
	if _, err := io.WriteString(w, alignColumns(lines)); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\ngates on: %s; mix: one HPA in %d at syncPeriodSeconds %d.\n"+
		"Cost per reconcile should stay put from column to column: the mix costs more in proportion to its reconcile rate.\n",
		proposalGates, mixFastEvery, int(mixFastPeriod/time.Second))
	return err
}
