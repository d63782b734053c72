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
	"strings"
)

// rampRows lays out the ramp: for each case, the seconds from the metric
// change to each replica count some controller's Deployment took (NaN
// where it skipped that count), to the target, and from the first step to
// the target; then the mean time to the target over the cases.
func rampRows(res *RampResult) []row {
	cs := res.Controllers
	pick := func(i int, f func(RampTimeline) float64) []float64 {
		out := make([]float64, len(cs))
		for k, c := range cs {
			out[k] = math.NaN()
			if i < len(c.Timelines) {
				out[k] = f(c.Timelines[i])
			}
		}
		return out
	}
	var rows []row
	for i, rc := range res.Cases {
		steps := fmt.Sprint(rc.UpstreamSteps)
		rows = append(rows, row{label: fmt.Sprintf("%s: %s, %d -> %d (upstream's rules: %s)", rc.Name, rc.Behavior, rc.MinReplicas, rc.Target, strings.Trim(steps, "[]"))})
		var counts []int32
		for _, c := range cs {
			if i < len(c.Timelines) {
				for _, s := range c.Timelines[i].Steps {
					if !slices.Contains(counts, s.Replicas) && s.Replicas != rc.Target {
						counts = append(counts, s.Replicas)
					}
				}
			}
		}
		slices.Sort(counts)
		for _, n := range counts {
			rows = append(rows, row{label: fmt.Sprintf("%d replicas", n), values: pick(i, func(t RampTimeline) float64 { return t.At(n) }), format: "%.1f", indent: true})
		}
		rows = append(rows,
			row{label: fmt.Sprintf("%d replicas (target)", rc.Target), values: pick(i, RampTimeline.Final), format: "%.1f", indent: true},
			row{label: "first step to target", values: pick(i, RampTimeline.Climb), format: "%.1f", indent: true},
		)
	}
	mean := make([]float64, len(cs))
	for k, c := range cs {
		var sum float64
		for _, t := range c.Timelines {
			sum += t.Final()
		}
		mean[k] = sum / float64(len(c.Timelines))
	}
	return append(rows, row{label: "mean time to target over the Deployments", values: mean, format: "%.1f"})
}

// WriteRampTable prints the ramp; nothing when it was not measured.
func WriteRampTable(w io.Writer, res *Result) error {
	r := res.Ramp
	if r == nil || len(r.Controllers) == 0 {
		return nil
	}
	fmt.Fprintf(w, "Ramp (%s): %d Deployments, each an HPA on an External metric of its own, every metric raised at once and held at most %.0fs; sync period %s\n\n",
		ScenarioRamp, len(r.Cases), r.HoldSeconds, r.SyncPeriod)
	names := make([]string, len(r.Controllers))
	for i, c := range r.Controllers {
		names[i] = c.Name
	}
	if err := writeSmallTable(w, "seconds from the metric change", names, rampRows(r)); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nThe time to each count runs from the ConfigMap patch to a watch seeing spec.replicas, so it includes the wait for the HPA's next pass:\n"+
		"the metrics change half a sync period before upstream's next pass over every HPA, while kube-hpa's HPAs are spread over the period (half of one\n"+
		"on average). \"first step to target\" is the climb's own pace. \"-\": a count that controller's Deployment skipped, or a target not reached within the hold.\n")
	return err
}
