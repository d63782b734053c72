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
