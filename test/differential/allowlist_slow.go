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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// slowFetchStamps is the allow-list entry of the slow fetches
// (slowfetch.go): kube-hpa stamps a pass at its start, upstream after its
// fetches, which a slow fetch makes slowFetchDelay later. It rewrites a
// time of kube-hpa's (lastScaleTime, a condition's lastTransitionTime)
// that is exactly slowFetchDelay before upstream's to upstream's, and
// nothing else: any other difference of a time, and every decision
// (replicas, the conditions' status, reason and message, the metrics, the
// events), is still compared. It holds only at the steps of a sequence
// with slow fetches from the first step that had one.
var slowFetchStamps = allowed{
	Class:   "a pass that waited for a slow fetch stamps its times at its start (slow fetches)",
	Visible: "lastScaleTime and the conditions' lastTransitionTime: kube-hpa's are the pass's start, upstream's the moment its fetches answered, slowFetchDelay later",
	Why:     "a pass is one instant for kube-hpa: its decision, its stamps and its stabilization recommendations share the pass's start",
	Readme:  "A pass is one instant for the behavior policies",
	rewrite: func(_ seqScenario, up, ours *observation) {
		early := func(o, u *metav1.Time) bool { return o != nil && u != nil && o.Add(slowFetchDelay).Equal(u.Time) }
		if early(ours.Status.LastScaleTime, up.Status.LastScaleTime) {
			t := *up.Status.LastScaleTime
			ours.Status.LastScaleTime = &t
		}
		for i := range ours.Status.Conditions {
			c := &ours.Status.Conditions[i]
			if u := condition(up, c.Type); u != nil && early(&c.LastTransitionTime, &u.LastTransitionTime) {
				c.LastTransitionTime = u.LastTransitionTime
			}
		}
	},
	holds: func(s seqScenario, k int, _, _ observation) bool { return s.slowSince(k) },
}

func init() { allowList = append(allowList, slowFetchStamps) }
