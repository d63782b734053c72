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
	"context"
	"testing"
	"testing/synctest"
)

// calcRegressions holds scenarios the generator once found, pasted from a
// failing run's output. Each must show no difference outside the allow-list.
var calcRegressions = []struct {
	name string
	s    calcScenario
}{
	{
		name: "a large ratio times the pod count overflows an int32 without any huge reading",
		s:    calcScenario{Method: "RawResource", Resource: "memory", Current: 1, Target: 1, TolDown: 0.1, TolUp: 0.1, Pods: []pod{{Name: "p0", Phase: "Pending"}, {Name: "p1", HasMetric: true, Metric: 853567691}, {Name: "p2", Phase: "Running"}, {Name: "p3", Phase: "Running", HasMetric: true, Metric: 959728615}, {Name: "p4", Phase: "Running", HasMetric: true}}, Gone: []int64{529017572, 3494}},
	},
	{
		name: "a negative AverageValue External sum is an overflow upstream",
		s:    calcScenario{Method: "ExternalPerPod", Current: 5, Target: 500, TolDown: 0.77, TolUp: 0.05, Values: []int64{-1860}, MetricAgo: 30},
	},
	{
		name: "pods of the lister and readings of deleted pods both count in a Pods average",
		s:    calcScenario{Method: "Pods", Current: 20, Target: 1858, TolDown: 0.1, TolUp: 0.92, Pods: []pod{{Name: "p0", Phase: "Running", HasMetric: true, Metric: 2118}, {Name: "p1", Phase: "Running"}, {Name: "p2", Phase: "Running", HasMetric: true, Metric: 3848}}, Gone: []int64{1349, 4611686018427387903}},
	},
}

func TestCalculatorRegressions(t *testing.T) {
	for _, tc := range calcRegressions {
		t.Run(tc.name, func(t *testing.T) {
			rep := newReport(tc.name, 0)
			synctest.Test(t, func(t *testing.T) {
				rep.count()
				checkCalc(context.Background(), tc.s, rep, "regression")
			})
			rep.finish(t)
		})
	}
}
