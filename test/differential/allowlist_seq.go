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
	"math"
	"regexp"
	"slices"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The allow-list entries that only sequences show.
var seqAllowList = []allowed{
	{
		Class:   "AverageValue Object or External metric at 0 replicas (reconcile)",
		Visible: "status currentMetrics averageValue: upstream divides by 0 replicas and writes -9223372036854775808m; kube-hpa writes the total",
		Why:     "division by zero (DESIGN.md)",
		Readme:  "Division by zero",
		rewrite: func(_ seqScenario, up, ours *observation) {
			for i := range min(len(up.Status.CurrentMetrics), len(ours.Status.CurrentMetrics)) {
				u, o := averageOf(&up.Status.CurrentMetrics[i]), averageOf(&ours.Status.CurrentMetrics[i])
				// Compared as quantities: read back from its stored form the
				// value no longer fits MilliValue, which then says 0.
				if u != nil && o != nil && *u != nil && (*u).Cmp(*resource.NewMilliQuantity(math.MinInt64, resource.DecimalSI)) == 0 {
					q := (*u).DeepCopy()
					*o = &q
				}
			}
		},
		holds: func(_ seqScenario, _ int, up, _ observation) bool { return up.Status.CurrentReplicas == 0 },
	},
	{
		Class:   "a workload the HPA scaled to zero is seen above zero without a rescale (a person scaled it up)",
		Visible: "ScaledToZero: upstream keeps it True until its next rescale, kube-hpa turns it False at once; a later zero set by the person is then a pause for kube-hpa, while upstream scales the workload up again",
		Why:     "a person's zero must never be taken for the HPA's own (docs/differences-from-upstream.md)",
		Readme:  "`ScaledToZero` turns `False`",
		cause: func(s seqScenario, up, _ []observation, i int) bool {
			if c := condition(&up[i], autoscalingv2.ScaledToZero); c != nil && c.Status == "True" && up[i].Scale > 0 {
				return true
			}
			// A person's scale-up of the HPA's own zero, within a step of
			// several periods: upstream may rescale, and so clear the
			// condition, before the step ends, a period after kube-hpa
			// cleared it (-seed 20261125 -case 57620).
			if i > 0 && s.Steps[i].Manual > 0 {
				if p := condition(&up[i-1], autoscalingv2.ScaledToZero); p != nil && p.Status == "True" {
					return true
				}
			}
			return false
		},
		signature: []string{"ScaledToZero.status", "ScaledToZero.reason", "ScaledToZero.message", "ScaledToZero.lastTransitionTime", "ScaledToZero.presence"},
	},
	{
		Class:   "a status write lost right after the HPA scaled its target to zero",
		Visible: "upstream, whose ScaledToZero was in the lost write, reads the zero as a person's pause and stays at zero; kube-hpa stored ScaledToZero before the zero, keeps it and scales up from zero when the metrics ask",
		Why:     "the controller's zero must survive any single failed write (DESIGN.md, pkg/controller/podautoscaler/zero_intent.go)",
		Readme:  "A zero survives a failed status write",
		cause:   lostZeroStatus,
		// kube-hpa's side of it: its own zero remembered, or left.
		signature: []string{"ScaledToZero.status", "ScaledToZero.presence", "scale"},
		confined: []string{"scale", "currentReplicas", "desiredReplicas", "lastScaleTime", "currentMetrics",
			"ScaledToZero.", "ScalingActive.", "AbleToScale.", "ScalingLimited.", "events"},
	},
	{
		Class:   "a metric target beyond the int64 milli-unit sums (reconcile)",
		Visible: "at a step where a pod without a reading counts, and within the HPA's memory of it, anything: upstream's sums that stand the target in for pods without readings wrap around, kube-hpa's saturate",
		Why:     "huge values saturate (a safety fix)",
		Readme:  "Huge metric values saturate",
		cause: func(s seqScenario, _, _ []observation, k int) bool {
			return s.hugeTargetCounts(k)
		},
		boundedCarry: true,
	},
	{
		Class:   "errors about pods' requests while several pods have such a problem (reconcile)",
		Visible: "which pod (and problem) the ScalingActive message and FailedGetResourceMetric events name: both name the first pod the informer cache lists, in no set order",
		Why:     "not a difference of kube-hpa: the cache's order is random on both sides",
		rewrite: func(_ seqScenario, up, ours *observation) {
			for _, o := range []*observation{up, ours} {
				rewriteTexts(o, func(m string) string { return podRequestError.ReplaceAllString(m, "<a pod's requests>") })
			}
		},
		// A condition's message stays from the pass that wrote it: a pass
		// that decided without the metrics (the target above maxReplicas)
		// leaves an earlier step's message in place.
		holds: func(s seqScenario, at int, _, _ observation) bool {
			return slices.ContainsFunc(s.Steps[:at+1], func(st step) bool { return requestProblems(st) >= 2 })
		},
	},
}

func init() { allowList = append(allowList, seqAllowList...) }

// lostZeroStatus tells whether step k is one where upstream is paused at a
// zero it made itself and then lost: since a step whose status write failed
// right after upstream's scale went from above zero to zero, upstream's
// scale has stayed at zero, no person paused it (a person's count above
// zero that the controllers then took to zero leaves their zero), upstream
// does not hold ScaledToZero=True, and kube-hpa does, or has left the zero.
func lostZeroStatus(s seqScenario, up, ours []observation, k int) bool {
	if c := condition(&up[k], autoscalingv2.ScaledToZero); up[k].Scale != 0 || c != nil && c.Status == "True" {
		return false
	}
	if c := condition(&ours[k], autoscalingv2.ScaledToZero); ours[k].Scale == 0 && (c == nil || c.Status != "True") {
		return false
	}
	for j := k; j >= 0; j-- {
		st := s.Steps[j]
		before := s.Start
		if j > 0 {
			before = up[j-1].Scale
		}
		if up[j].Scale != 0 || st.Manual >= 0 || st.Fault != nil && (st.Fault.Person && st.Fault.PersonReplicas == 0 || st.Fault.Recreate) {
			return false
		}
		if st.Fault != nil && st.Fault.Person {
			// The person's count is what the controllers then took to
			// zero.
			before = max(before, st.Fault.PersonReplicas)
		}
		if st.Fault != nil && st.Fault.StatusFail != "" && before > 0 {
			return true
		}
	}
	return false
}

// hugeTargetCounts tells whether a pod metric's target beyond the int64
// sums enters the decision of step k: the controllers stand the target in
// for a pod without a reading, so a step with such a pod (one that a
// controller may count: not being deleted) sums it.
func (s seqScenario) hugeTargetCounts(k int) bool {
	huge := slices.ContainsFunc(s.Metrics, func(m metricSpec) bool {
		pod := m.Type != "Object" && m.Type != "External"
		return pod && m.Value > math.MaxInt64/64
	})
	return huge && slices.ContainsFunc(s.Steps[k].Pods, func(p pod) bool { return !p.HasMetric && !p.Deleted })
}

func longestPeriod(r *autoscalingv2.HPAScalingRules) int32 {
	var longest int32
	for _, p := range r.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	return longest
}

func hasPercent(r *autoscalingv2.HPAScalingRules) bool {
	return slices.ContainsFunc(r.Policies, func(p autoscalingv2.HPAScalingPolicy) bool { return p.Type == autoscalingv2.PercentScalingPolicy })
}

// firstTurnaround returns the first step at which upstream's scale moved the
// other way than it last moved, or -1.
func firstTurnaround(s seqScenario, up []observation) int {
	last, dir := s.Start, 0
	for i, o := range up {
		d := 0
		switch {
		case o.Scale > last:
			d = 1
		case o.Scale < last:
			d = -1
		}
		if d != 0 && dir != 0 && d != dir {
			return i
		}
		if d != 0 {
			dir = d
		}
		last = o.Scale
	}
	return -1
}

// objectErrorText is kube-hpa's text for a failed Object metric fetch.
var objectErrorText = regexp.MustCompile(`unable to get metric (\S+) on (\S+) ([^/\s]+)/([^:\s]+): `)

// podRequestError matches an error about one pod's requests, inside a
// longer message: a pod of the first HPA's target (p0...) or of the
// twin's (tp0..., twin.go).
var podRequestError = regexp.MustCompile(`(missing request for \w+ in container \w+ of|container \w+ not found in|missing pod-level request for \w+ in) Pod t?p[0-9]+`)

// rewriteTexts applies f to every condition message and event of o.
func rewriteTexts(o *observation, f func(string) string) {
	for i := range o.Status.Conditions {
		o.Status.Conditions[i].Message = f(o.Status.Conditions[i].Message)
	}
	for i := range o.Events {
		o.Events[i] = f(o.Events[i])
	}
}

func condition(o *observation, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range o.Status.Conditions {
		if o.Status.Conditions[i].Type == t {
			return &o.Status.Conditions[i]
		}
	}
	return nil
}

// metricNamed returns the index of the metric a ValidMetricFound message
// names, or -1.
func (s seqScenario) metricNamed(message string) int {
	for i, m := range s.Metrics {
		switch m.Type {
		case "Object", "External", "Pods":
			// Upstream names an AverageValue Object metric "external
			// metric m(nil)".
			if strings.Contains(message, " metric "+m.Name+"(") || strings.HasSuffix(message, " metric "+m.Name) {
				return i
			}
		case "ContainerResource":
			if strings.Contains(message, m.Name+" container resource") {
				return i
			}
		default:
			utilization := strings.Contains(message, "from "+m.Name+" resource utilization")
			if m.Target == "Utilization" && utilization || m.Target != "Utilization" && strings.HasSuffix(message, "from "+m.Name+" resource") {
				return i
			}
		}
	}
	return -1
}

// averageOf returns where a metric status keeps its average value.
func averageOf(m *autoscalingv2.MetricStatus) **resource.Quantity {
	switch {
	case m.Object != nil:
		return &m.Object.Current.AverageValue
	case m.External != nil:
		return &m.External.Current.AverageValue
	}
	return nil
}

func cloneObservations(in []observation) []observation {
	out := make([]observation, len(in))
	for i, o := range in {
		out[i] = cloneObservation(o)
	}
	return out
}
