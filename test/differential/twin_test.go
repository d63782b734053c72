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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
)

// twinRowPod is a healthy pod with a cpu reading, for the twin rows.
func twinRowPod(name string, cpu int64) pod {
	return pod{Name: name, Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: cpu, MetricAgo: 15, Window: 30}
}

// TestTwinSharesTheFirstsFetch holds a twin to what it is there for: it
// lands on the first HPA's slot, kube-hpa serves both HPAs' External
// metric from one fetch a pass, where upstream fetches it for each, and
// the twin rescales in both worlds.
func TestTwinSharesTheFirstsFetch(t *testing.T) {
	for _, tc := range seqRegressions {
		if !tc.sharesFetch {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			first, twin := tc.s.hpa(), tc.s.twinView().hpaNamed("twin")
			if a, b := podautoscaler.SpreadOffset(0, first, syncPeriod), podautoscaler.SpreadOffset(0, twin, syncPeriod); a != b {
				t.Fatalf("the twin's slot is %s into the period, the first HPA's %s", b, a)
			}
			ours, oursLog := runWorld(t, tc.s, ourController)
			up, upLog := runWorld(t, tc.s.forUpstream(oursLog), upstreamController)
			passes := 0
			for _, st := range tc.s.Steps {
				passes += st.Advance
			}
			if oursLog.externalFetches != passes || upLog.externalFetches != 2*passes {
				t.Errorf("External fetches: kube-hpa %d, upstream %d; want one a pass (%d) and one an HPA a pass (%d)",
					oursLog.externalFetches, upLog.externalFetches, passes, 2*passes)
			}
			_, upTwin := splitTwins(up)
			_, oursTwin := splitTwins(ours)
			if rescaleCount(upTwin) == 0 || rescaleCount(oursTwin) == 0 {
				t.Errorf("the twin rescaled %d times upstream and %d times in kube-hpa, want both to", rescaleCount(upTwin), rescaleCount(oursTwin))
			}
		})
	}
}

// TestFakeMetricsSelectPods pins that a pod metric answers for the pods
// the fetch's selector selects only: each HPA reads its own target's pods.
func TestFakeMetricsSelectPods(t *testing.T) {
	f := newFakeMetrics()
	s := seqScenario{Metrics: []metricSpec{{Type: "Resource", Target: "Utilization", Name: "cpu", Value: 50}}, Twin: &twin{}}
	st := step{Pods: []pod{twinRowPod("p0", 100)}, Values: []int64{0}, TwinPods: []pod{twinRowPod("tp0", 200), twinRowPod("tp1", 300)}}
	s.applyMetrics(st, f, time.Now())
	for app, want := range map[string][]string{appLabel: {"p0"}, twinLabel: {"tp0", "tp1"}, "other": nil} {
		got, _, err := f.resourceMetric("cpu", labels.SelectorFromSet(labels.Set{"app": app}))
		if len(want) == 0 {
			if err == nil {
				t.Errorf("app=%s: readings %v, want the empty answer's error", app, got)
			}
			continue
		}
		if err != nil || len(got) != len(want) {
			t.Errorf("app=%s: readings %v (%v), want those of %v", app, got, err, want)
		}
		for _, name := range want {
			if _, ok := got[name]; !ok {
				t.Errorf("app=%s: no reading of %s", app, name)
			}
		}
	}
}
