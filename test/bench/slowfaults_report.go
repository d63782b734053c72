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
	"math"
)

// What the slow-tenants table adds in the modes that fail mid-run
// (slowfaults.go): the healthy HPAs' latency before and after the
// failures began, and the slow HPAs' fallback lateness.

// slowProviderWords says how the slow HPAs' metric behaved, for the
// table's first line.
func slowProviderWords(s Setup) string {
	fallback := fmt.Sprintf("; kube-hpa's slow HPAs have a fallback after %s, upstream has none", s.FallbackAfter)
	switch SlowTenantsMode(s.SlowMode) {
	case SlowModeMidRun:
		return "answered fast until the steady window, then hanging" + fallback
	case SlowModeFlap:
		return fmt.Sprintf("answered fast until the steady window, then in turn failing fast and hanging, %s each", s.FlapPeriod) + fallback
	}
	return "answered by the adapter after " + s.SlowDelay
}

// slowFaultRows are the table's rows of the modes that fail mid-run, none
// in the others; each picks a figure of every controller of the table.
func slowFaultRows(s Setup, each func(func(ControllerResult) float64) []float64) []row {
	if !SlowTenantsMode(s.SlowMode).failsMidRun() {
		return nil
	}
	// faults is NaN (printed "-") for a controller without the figures.
	faults := func(f func(SlowFaults, Latency) float64) []float64 {
		return each(func(c ControllerResult) float64 {
			if c.SlowFaults == nil {
				return math.NaN()
			}
			return f(*c.SlowFaults, c.Latency)
		})
	}
	lateness := func(f func(Latency) float64) []float64 {
		return faults(func(sf SlowFaults, _ Latency) float64 {
			if sf.FallbackLateness == nil || sf.FallbackLateness.Measured == 0 {
				return math.NaN()
			}
			return f(*sf.FallbackLateness)
		})
	}
	var rows []row
	if s.Latency {
		rows = append(rows,
			row{label: fmt.Sprintf("healthy HPAs' metric change to scale, p50 s, before the failures (%d HPAs, %d changes per period)", s.LatencyHPAs, min(maxLatencyTrials, s.LatencyHPAs)),
				values: faults(func(sf SlowFaults, _ Latency) float64 { return sf.LatencyBefore.P50 }), format: "%.2f"},
			row{label: "after the failures began", values: faults(func(_ SlowFaults, after Latency) float64 { return after.P50 }), format: "%.2f", indent: true},
			row{label: "healthy HPAs' metric change to scale, p99 s, before the failures",
				values: faults(func(sf SlowFaults, _ Latency) float64 { return sf.LatencyBefore.P99 }), format: "%.2f"},
			row{label: "after the failures began", values: faults(func(_ SlowFaults, after Latency) float64 { return after.P99 }), format: "%.2f", indent: true},
			row{label: "after over before (goal at most 1.10)", values: faults(func(sf SlowFaults, after Latency) float64 { return latencyGrowth(sf.LatencyBefore, after) }), format: "%.2f", indent: true},
			row{label: "healthy HPAs not scaled within the latency time-out, before the failures",
				values: faults(func(sf SlowFaults, _ Latency) float64 { return float64(sf.LatencyBefore.Missed) }), format: "%.0f"},
			row{label: "after the failures began", values: faults(func(_ SlowFaults, after Latency) float64 { return float64(after.Missed) }), format: "%.0f", indent: true},
		)
	}
	return append(rows,
		row{label: fmt.Sprintf("slow HPAs' fallback lateness, p50 s (due %s after the failures began; - = no fallback)", s.FallbackAfter),
			values: lateness(func(l Latency) float64 { return l.P50 }), format: "%.1f"},
		row{label: "max s", values: lateness(func(l Latency) float64 { return l.Max }), format: "%.1f", indent: true},
		row{label: "slow HPAs whose fallback was not seen within the wait", values: faults(func(sf SlowFaults, _ Latency) float64 {
			if sf.FallbackLateness == nil {
				return math.NaN()
			}
			return float64(sf.FallbackLateness.Missed)
		}), format: "%.0f"},
	)
}

// latencyGrowth is the p99 latency after the failures began over the p99
// before, NaN without a figure before.
func latencyGrowth(before, after Latency) float64 {
	if before.Measured == 0 || before.P99 <= 0 {
		return math.NaN()
	}
	return after.P99 / before.P99
}

// slowFaultNotes say how the rows of slowFaultRows were measured; nothing
// in the other modes.
func slowFaultNotes(s Setup) string {
	if !SlowTenantsMode(s.SlowMode).failsMidRun() {
		return ""
	}
	var notes string
	if s.Latency {
		notes = fmt.Sprintf("Latency: the latency HPAs' metrics raised by %d replicas in %d changes spread over one sync period, on the same controller and cluster: once just before the slow metric\n"+
			"began to fail (every metric answering, as without slow tenants), once more after the steady window, with it failing; p99 over the HPAs scaled within the time-out.\n",
			latencyStep, min(maxLatencyTrials, s.LatencyHPAs))
	}
	return notes + fmt.Sprintf("Fallback lateness: from when a slow HPA's fallback was due (the failures' start plus %s) until a watch saw its ExternalMetricFallbackActive condition True;\n"+
		"it includes the wait for the HPA's first pass after the failures began (up to one sync period), from which the controller counts the failures.\n", s.FallbackAfter)
}
