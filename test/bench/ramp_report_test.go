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
	"regexp"
	"strings"
	"testing"
)

func TestWriteRampTable(t *testing.T) {
	res := &Result{Ramp: &RampResult{
		SyncPeriod: "15s", HoldSeconds: 120,
		Cases: []RampCase{
			{Name: "ramp-default-2", Behavior: "behavior {} (4 Pods or 100 Percent per 15s)", MinReplicas: 2, Target: 7, UpstreamSteps: []int32{6, 7}},
			{Name: "ramp-pods-2", Behavior: "1 Pods per 15s", MinReplicas: 2, Target: 4, UpstreamSteps: []int32{3, 4}},
		},
		Controllers: []RampController{
			{Name: Upstream, Timelines: []RampTimeline{
				{Name: "ramp-default-2", Steps: []RampStep{{6, 10}, {7, 25}}, Reached: true, FinalSeconds: 25},
				{Name: "ramp-pods-2", Steps: []RampStep{{3, 5}, {4, 20}}, Reached: true, FinalSeconds: 20},
			}},
			{Name: KubeHPA, Timelines: []RampTimeline{
				{Name: "ramp-default-2", Steps: []RampStep{{5, 4}, {7, 19}}, Reached: true, FinalSeconds: 19},
				{Name: "ramp-pods-2", Steps: []RampStep{{3, 8}}},
			}},
		},
	}}
	var b strings.Builder
	if err := WriteRampTable(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`^Ramp \(ramp\): 2 Deployments, .*held at most 120s; sync period 15s\n\nseconds from the metric change +upstream +kube-hpa +kube-hpa/upstream\n`,
		// A case's heading is a line of its own, outside the columns.
		`\nramp-default-2: behavior \{\} \(4 Pods or 100 Percent per 15s\), 2 -> 7 \(upstream's rules: 6 7\)\n  5 replicas +- +4\.0 +-\n  6 replicas +10\.0 +- +-\n  7 replicas \(target\) +25\.0 +19\.0 +0\.76\n  first step to target +15\.0 +15\.0 +1\.00\n`,
		// A target not reached within the hold is no figure.
		`\n  4 replicas \(target\) +20\.0 +- +-\n`,
		`\nmean time to target over the Deployments +22\.5 +- +-\n`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var none strings.Builder
	if err := WriteRampTable(&none, &Result{}); err != nil || none.Len() > 0 {
		t.Errorf("a run without the ramp printed %q, %v", none.String(), err)
	}
}
