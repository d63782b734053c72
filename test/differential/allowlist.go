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
	"math/big"
	"regexp"
	"slices"
)

// allowed is a known, accepted difference between upstream and kube-hpa: the
// class of scenario it shows in, what a user sees differ, and why kube-hpa
// differs. Every permanent entry is also in docs/differences-from-upstream.md,
// which the README links.
type allowed struct {
	Class   string
	Visible string
	Why     string
	// Readme is the words of docs/differences-from-upstream.md that
	// list this difference; empty only where a user sees nothing of
	// kube-hpa's doing (Visible says why).
	Readme string
	// calc returns the fields of a calculator result whose difference the
	// entry accepts for this scenario (none when it does not apply).
	calc func(s calcScenario, up, ours calcResult) []string
	// cause tells whether the entry's difference starts at a step of a
	// sequence: its documented condition, checked at that step alone. The
	// steps after it that still differ are its consequences only while
	// the two runs have not met again since, or within the HPA's memory
	// of it (excuse.go); later differences need excuses of their own.
	cause func(s seqScenario, up, ours []observation, step int) bool
	// signature, when set, lists the differences of which a caused step
	// must show one: a step whose difference is none of them is not the
	// entry's, and fails the run as an excuse used outside its condition.
	signature []string
	// confined, when set, lists every difference the entry may excuse, at
	// a step where its cause holds and at the steps it carries (an entry
	// ending in "." stands for every part of that condition): a caused
	// step with another difference is a misuse, a carried one is not the
	// entry's.
	confined []string
	// boundedCarry limits the entry's consequences to the HPA's memory of
	// the last step its cause held, however long the runs keep differing
	// since: a later difference needs its own excuse.
	boundedCarry bool
	// rewrite changes an observation of kube-hpa's to what upstream would
	// show if only the entry's difference were gone.
	rewrite func(s seqScenario, up, ours *observation)
	// holds is the documented condition of a rewrite, checked at every
	// step whose observations it changes: a rewrite that changes a step
	// where it does not hold fails the run.
	holds func(s seqScenario, step int, up, ours observation) bool
}

// allowList is every accepted difference.
var allowList = []allowed{
	{
		Class:   "Object and External metrics with a Value target",
		Visible: "none: upstream's calculator returns no timestamp, kube-hpa the reading's; the controller only logs it",
		Why:     "the timestamp of the reading is the one to log",
		calc: func(s calcScenario, _, _ calcResult) []string {
			return when(s.Method == methodObject || s.Method == methodExternal, "timestamp")
		},
	},
	{
		Class:   "AverageValue Object or External metric at 0 replicas",
		Visible: "status averageValue: upstream divides by 0 replicas and reports -9223372036854775808m; kube-hpa reports the total",
		Why:     "division by zero (DESIGN.md); the total is what one replica would carry",
		Readme:  "Division by zero",
		calc: func(s calcScenario, _, _ calcResult) []string {
			return when((s.Method == methodObjectPerPod || s.Method == methodExternalPerPod) && s.Current == 0, "raw")
		},
	},
	{
		Class:   "huge or negative readings whose replica proposal does not fit an int32",
		Visible: "upstream's float-to-int32 conversion wraps (a huge reading proposes -2147483648 replicas, a negative one -1); kube-hpa proposes maxInt32 or 0",
		Why:     "huge values saturate (a safety fix): a huge reading must ask for the most replicas, never scale down",
		Readme:  "Huge metric values saturate",
		calc: func(_ calcScenario, up, ours calcResult) []string {
			return when(up.Replicas < 0 && (ours.Replicas == 0 || ours.Replicas == math.MaxInt32), "replicas")
		},
	},
	{
		Class:   "readings whose utilization does not fit an int32",
		Visible: "status averageUtilization: upstream's int32 conversion wraps around; kube-hpa reports 2147483647",
		Why:     "huge values saturate (a safety fix)",
		Readme:  "Huge metric values saturate",
		calc: func(_ calcScenario, up, ours calcResult) []string {
			return when(ours.Utilization == math.MaxInt32 && up.Utilization != math.MaxInt32, "utilization")
		},
	},
	{
		Class:   "readings whose replica proposal overflows an int32 (a huge reading, or a large ratio times the pod count)",
		Visible: "upstream's wrapped conversion makes it keep the current replicas (or the tolerance holds); kube-hpa proposes maxInt32, so the workload goes to maxReplicas",
		Why:     "huge values saturate (a safety fix): a huge reading must ask for the most replicas",
		Readme:  "Huge metric values saturate",
		calc: func(_ calcScenario, up, ours calcResult) []string {
			return when(ours.Replicas == math.MaxInt32 && up.Replicas != math.MaxInt32, "replicas")
		},
	},
	{
		Class:        "a sequence in which a reading over its target overflows an int32 proposal",
		Visible:      "from that step on, anything: upstream's wrapped proposal scales down or holds where kube-hpa's saturated one scales to maxReplicas, and the recommendations and conditions that follow differ",
		Why:          "huge values saturate (a safety fix); the calculator comparison checks the proposals themselves",
		Readme:       "Huge metric values saturate",
		cause:        func(s seqScenario, _, _ []observation, step int) bool { return s.overflowsAt(step) },
		confined:     proposalFields,
		boundedCarry: true,
	},
	{
		Class:        "a sequence in which pod readings add up beyond int64 milli-units",
		Visible:      "from that step on, as for an overflowing proposal: upstream's sum wraps around (a negative average, a count held or scaled down) where kube-hpa's saturates",
		Why:          "huge values saturate (a safety fix); the calculator comparison checks the sums themselves",
		Readme:       "Huge metric values saturate",
		cause:        func(s seqScenario, _, _ []observation, step int) bool { return s.podSumOverflowsAt(step) },
		confined:     proposalFields,
		boundedCarry: true,
	},
	{
		Class:   "an error about one pod's requests while several pods have such a problem",
		Visible: "the pod (and problem) named in the message: both report the first pod the informer cache lists, which is in no set order",
		Why:     "not a difference of kube-hpa: the cache's order is random on both sides",
		calc: func(_ calcScenario, up, ours calcResult) []string {
			return when(requestError.MatchString(up.Err) && requestError.MatchString(ours.Err), "errtext")
		},
	},
	{
		Class:   "AverageValue Object or External metric beyond float64 precision (|total| > 2^53 milli-units)",
		Visible: "status averageValue: upstream rounds through float64 (or reports the saturated total undivided); kube-hpa divides exactly",
		Why:     "huge values saturate (a safety fix); integer division keeps the exact average",
		Readme:  "Huge metric values saturate",
		calc: func(s calcScenario, up, ours calcResult) []string {
			perPod := s.Method == methodObjectPerPod || s.Method == methodExternalPerPod
			return when(perPod && (beyondFloat(s.Value) && s.Method == methodObjectPerPod || anyBeyondFloat(s.Values) && s.Method == methodExternalPerPod), "raw")
		},
	},
	{
		Class:   "External metric whose series sum overflows int64 milli-units",
		Visible: "replicas and the status value: upstream stops summing at the first positive overflow and wraps around on a negative one; kube-hpa saturates both ways",
		Why:     "huge values saturate (a safety fix): a sum beyond int64 is the largest value, never a wrapped one",
		Readme:  "Huge metric values saturate",
		calc: func(s calcScenario, _, _ calcResult) []string {
			return when((s.Method == methodExternal || s.Method == methodExternalPerPod) && sumOverflows(s.Values), "replicas", "raw")
		},
	},
	{
		Class:   "pod readings (or the target that stands in for a pod without a reading) whose sum overflows int64 milli-units",
		Visible: "replicas, utilization and the status average: upstream's int64 sum wraps around (a huge reading may ask for 0 or a negative count); kube-hpa saturates, so a huge reading asks for the most replicas and a huge target for the fewest",
		Why:     "huge values saturate (a safety fix, docs/differences-from-upstream.md)",
		Readme:  "Huge metric values saturate",
		calc: func(s calcScenario, _, _ calcResult) []string {
			perPod := s.Method == methodResource || s.Method == methodRawResource || s.Method == methodPods
			return when(perPod && podSumOverflows(s), "replicas", "utilization", "raw")
		},
	},
}

// podSumOverflows tells whether the readings of a scenario's pods, the
// readings of pods gone from the lister, and the target counted once per
// pod (as it stands in for missing readings) can add up beyond int64, the
// utilization's percent scaling included.
func podSumOverflows(s calcScenario) bool {
	total := new(big.Int)
	add := func(v int64) { total.Add(total, new(big.Int).Abs(big.NewInt(v))) }
	for _, p := range s.Pods {
		add(p.Metric)
		add(s.Target)
	}
	for _, v := range s.Gone {
		add(v)
	}
	if s.Method == methodResource {
		total.Mul(total, big.NewInt(100))
	}
	return !total.IsInt64()
}

// requestError matches the errors about one pod's requests.
var requestError = regexp.MustCompile(`^(missing request for \w+ in container \w+|container \w+ not found|missing pod-level request for \w+) (of |in )?Pod p[0-9]+$`)

func when(cond bool, fields ...string) []string {
	if cond {
		return fields
	}
	return nil
}

// float64 holds integers exactly up to 2^53.
const floatExact = 1 << 53

func beyondFloat(v int64) bool { return v > floatExact || v < -floatExact }

func anyBeyondFloat(vs []int64) bool { return slices.ContainsFunc(vs, beyondFloat) }

func runningSumGoesNegative(vs []int64) bool {
	var sum int64
	for _, v := range vs {
		sum += v
		if sum < 0 {
			return true
		}
	}
	return false
}

func sumOverflows(vs []int64) bool {
	var sum int64
	for _, v := range vs {
		if (v > 0 && sum > math.MaxInt64-v) || (v < 0 && sum < math.MinInt64-v) {
			return true
		}
		sum += v
	}
	return false
}

// classifyCalc returns the allow-list entries that together accept every
// differing field, or nil when some difference is not accepted.
func classifyCalc(s calcScenario, up, ours calcResult, diff []string) []*allowed {
	remaining := slices.Clone(diff)
	var by []*allowed
	for i := range allowList {
		a := &allowList[i]
		if a.calc == nil {
			continue
		}
		accepted := a.calc(s, up, ours)
		before := len(remaining)
		remaining = slices.DeleteFunc(remaining, func(f string) bool { return slices.Contains(accepted, f) })
		if len(remaining) < before {
			by = append(by, a)
		}
	}
	if len(remaining) > 0 {
		return nil
	}
	return by
}

// overflowsAt tells whether a reading of the step, over its metric's
// target, is so large that a replica proposal from it can overflow an int32.
// There upstream's proposals wrap where kube-hpa's saturate, and so does
// everything built on them (recommendations, stabilization) for as long as
// the HPA remembers them. A pod metric's proposal is about its readings'
// sum over the target (the pod count cancels out), a utilization's that
// sum over the pods' requests; an Object or External metric's is its
// ratio times up to 16 replicas.
func (s seqScenario) overflowsAt(step int) bool {
	st := s.Steps[step]
	for j, m := range s.Metrics {
		switch m.Type {
		case "Object", "External":
			if math.Abs(float64(st.Values[j]))/float64(m.Value) > math.MaxInt32/16 {
				return true
			}
			continue
		}
		var total, requests float64
		n := 0
		for _, p := range st.Pods {
			if p.HasMetric {
				total += math.Abs(float64(p.Metric))
				requests += float64(smallestRequest(p, m.Name))
				n++
			}
		}
		proposal := total / float64(m.Value)
		if m.Target == "Utilization" {
			proposal = total * 100 * float64(n) / (max(requests, 1) * float64(m.Value))
		}
		// Twice the margin: the pods without readings and the rounding.
		if proposal > math.MaxInt32/2 {
			return true
		}
	}
	return false
}

// proposalFields are what a replica proposal decides, the twin's too: the
// count, its limits, which metric decided (ScalingActive) and the events;
// not observedGeneration.
var proposalFields = []string{"scale", "currentReplicas", "desiredReplicas", "lastScaleTime", "currentMetrics",
	"AbleToScale.", "ScalingActive.", "ScalingLimited.", "ScaledToZero.", "events", "twin.scale", "twin.currentReplicas", "twin.desiredReplicas",
	"twin.lastScaleTime", "twin.currentMetrics", "twin.AbleToScale.", "twin.ScalingActive.", "twin.ScalingLimited.", "twin.ScaledToZero.", "twin.events"}

// podSumOverflowsAt tells whether the readings of a pod metric at the step,
// with its target standing in for each pod without one, can add up beyond
// int64 milli-units (times 100 for a utilization), where upstream's sum
// wraps around.
func (s seqScenario) podSumOverflowsAt(step int) bool {
	for _, m := range s.Metrics {
		if m.Type == "Object" || m.Type == "External" {
			continue
		}
		total := new(big.Int)
		add := func(v int64) { total.Add(total, new(big.Int).Abs(big.NewInt(v))) }
		for _, p := range s.Steps[step].Pods {
			switch {
			case p.HasMetric:
				add(p.Metric)
			case m.Target != "Utilization":
				add(m.Value)
			}
		}
		if m.Target == "Utilization" {
			total.Mul(total, big.NewInt(100))
		}
		if !total.IsInt64() {
			return true
		}
	}
	return false
}

// smallestRequest is the least request of resource a controller may divide
// a pod's reading by (its app container's, or its pod-level one), 1m at
// least.
func smallestRequest(p pod, resource string) int64 {
	req, podLevel := p.CPU, p.PodCPU
	if resource == "memory" {
		req, podLevel = p.Mem, p.PodMem
	}
	if podLevel > 0 && (req <= 0 || podLevel < req) {
		req = podLevel
	}
	return max(req, 1)
}
