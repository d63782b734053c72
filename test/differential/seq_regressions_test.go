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
	"slices"
	"testing"
)

// seqRegressions holds sequences pasted from failing runs, with the
// allow-list classes that must accept their differences (none when the two
// controllers must agree). An entry whose class is fixed away fails here, so
// the row moves to wantClasses: nil with its allow-list entry removed.
var seqRegressions = []struct {
	name        string
	s           seqScenario
	wantClasses []string
	// met, when set, are the faults that must meet kube-hpa in the row
	// (TestRegressionFaultsMeetKubeHPA).
	met *faultCounts
	// scales, when set, are the target's replicas after each step, in
	// both worlds: the outcome the row is there to show, which agreeing
	// controllers could miss together (a handover not made).
	scales []int32
	// sharesFetch marks a twin row made to show the shared fetch
	// (TestTwinSharesTheFirstsFetch): the shared External metric is the
	// only one fetched, at every pass. A twin row pasted from a run
	// (other External metrics, passes that fetch nothing) is not one.
	sharesFetch bool
}{
	{
		name: "a person's pause to zero between kube-hpa's read and its scale-up stands, as upstream's pass after the pause leaves it",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 2, Manual: -1, Values: []int64{9000}, Fault: &fault{Person: true}},
			{Advance: 2, Manual: -1, Values: []int64{9000}},
		}},
	},
	{
		name: "a person's scale-up between kube-hpa's read and its scale-down is decided again from the person's count",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 8, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{2000}, Fault: &fault{Person: true, PersonReplicas: 12}},
			{Advance: 3, Manual: -1, Values: []int64{2000}},
		}},
	},
	{
		name: "a rollout between read and write and a lost status update leave what upstream writes without them",
		s: seqScenario{Max: 10, Metrics: []metricSpec{{Type: "External", Target: "Value", Name: "m0", Value: 1000}}, Start: 4, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{0}, Fault: &fault{Rollout: true, StatusConflict: true}},
			{Advance: 2, Manual: -1, Values: []int64{5000}, Fault: &fault{StatusConflict: true}},
		}},
	},
	{
		name: "a recommendation exactly the legacy window old still holds the scale, on both",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 5, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{5000}},
			{Advance: 20, Manual: -1, Values: []int64{1000}},
		}},
	},
	{
		name: "a Percent scale-down policy of 80% from 20 replicas allows 3, on both",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0, Policies: []policy{{Type: "Percent", Value: 80, Period: 60}}}, Start: 20, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{1000}},
		}},
	},
	{
		name: "steady load keeps the replicas on both",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 4, Manual: -1, Values: []int64{3000}},
			{Advance: 30, Manual: -1, Values: []int64{3100}},
		}},
	},
	{
		name:        "a person scales the HPA's zero up within a step of several periods: ScaledToZero cleared a period apart (-seed 20261125 -case 57620)",
		s:           seqScenario{Max: 10, Metrics: []metricSpec{{Type: "External", Target: "Value", Name: "m0", Value: 100}}, Up: &rules{Window: 120, Policies: []policy{{Type: "Pods", Value: 2, Period: 15}}}, Down: &rules{Window: -1, Select: "Max", Policies: []policy{{Type: "Percent", Value: 200, Period: 120}, {Type: "Percent", Value: 395, Period: 600}, {Type: "Pods", Value: 4, Period: 869}}}, Start: 8, Steps: []step{{Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "False", CPU: 80, Mem: 1000, HasMetric: true, Metric: 2052, MetricAgo: 10, Window: 60}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1220, MetricAgo: 15, Window: 30}}, Values: []int64{4888}}, {Advance: 26, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Failed", Ready: "True", ReadyAgo: 200, CPU: 500, Mem: -1, Sidecar: true, SidecarCPU: 250, SidecarMem: 250, HasMetric: true, Metric: -2911, MetricAgo: 30, Window: 15}}, Values: []int64{3360}}, {Advance: 8, Manual: 3, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 214, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1072, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1017, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1029, MetricAgo: 15, Window: 30}}, Values: []int64{884}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", CPU: 1000, Mem: 2360, HasMetric: true, Metric: 3677, MetricAgo: 10, Window: 15}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 922, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 32, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1403, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1421, MetricAgo: 15, Window: 30}, {Name: "p5", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 216, MetricAgo: 15, Window: 30}}, Values: []int64{3033}}, {Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1244, MetricAgo: 15, Window: 30}, {Name: "p1", StartAgo: 30, CPU: 1000, Metric: 1655, MetricAgo: 10, Window: 60}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 874, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 357, MetricAgo: 15, Window: 30}, {Name: "p4", Ready: "True", ReadyAgo: 5, StartAgo: 120, CPU: -1, Mem: 1000, HasMetric: true, Metric: 2429, MetricAgo: 241, Window: 30}, {Name: "p5", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1241, MetricAgo: 15, Window: 30}}, Values: []int64{2817}}, {Advance: 15, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1135, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 45, Mem: 28, Sidecar: true, SidecarCPU: 2064, SidecarMem: 1000, Metric: 3924, MetricAgo: 30, Window: 15}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 798, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", ReadyAgo: 90, StartAgo: 30, CPU: -1, Mem: 500, HasMetric: true, Metric: 2355, MetricAgo: 60, Window: 60}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 813, MetricAgo: 15, Window: 30}}, Values: []int64{2229}}}},
		wantClasses: []string{"a workload the HPA scaled to zero is seen above zero without a rescale (a person scaled it up)"},
	},
	{
		name:        "a proposal that overflows where both clamp to maxReplicas, remembered: a later pass's stabilization reason differs (-seed 20261126 -case 53538)",
		s:           seqScenario{Min: 1, Max: 1, Metrics: []metricSpec{{Type: "ContainerResource", Target: "Utilization", Name: "memory", Value: 50}, {Type: "Resource", Target: "AverageValue", Name: "cpu", Value: 961}}, Start: 32, Steps: []step{{Advance: 20, Manual: -1, Values: []int64{1397, 3766}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 643, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Succeeded", Ready: "True", ReadyAgo: 400, StartAgo: 600, CPU: 250, Mem: 500, Sidecar: true, SidecarCPU: 2398, SidecarMem: 250, HasMetric: true, Metric: 9223372036854775807, MetricAgo: 30, Window: 15}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 214, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1273, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 67, MetricAgo: 15, Window: 30}}, Values: []int64{2151, 1134}, Fault: &fault{Person: true, PersonReplicas: 5}}, {Advance: 2, Manual: -1, Values: []int64{1106, 3967}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 295, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1382, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1371, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 20, StartAgo: 30, CPU: -1, Mem: 100, HasMetric: true, Metric: 332, MetricAgo: 77, Window: 60}, {Name: "p4", Phase: "Running", Ready: "True", StartAgo: 30, CPU: 170, Mem: 1710, Metric: 3676, MetricAgo: 10, Window: 15}}, Values: []int64{4049, 461}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 311, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 572, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 279, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Pending", Ready: "False", ReadyAgo: 400, StartAgo: 10, CPU: 3034, Mem: 100, InitCPU: 100, HasMetric: true, Metric: 319, MetricAgo: 10, Window: 15}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1007, MetricAgo: 15, Window: 30}, {Name: "p5", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1037, MetricAgo: 15, Window: 30}}, Values: []int64{490, 2765}}, {Advance: 14, Manual: -1, Values: []int64{2520, 2778}, Fault: &fault{StatusConflict: true, Hang: []int{0}}}, {Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 927, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 185, MetricAgo: 15, Window: 30}}, Values: []int64{2416, 274}}}},
		wantClasses: []string{"a sequence in which a reading over its target overflows an int32 proposal"},
	},
	{
		name:        "after an overflow past the HPA's memory, kube-hpa holds its higher count while its other metric fails, then closes on upstream's: a remnant, not a decision (-seed 1 -case 4324 at a tenth of the overflowing readings)",
		s:           seqScenario{Min: -1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}, {Type: "ContainerResource", Target: "Utilization", Name: "memory", Value: 50}}, Up: &rules{Window: 15, Select: "Max", Policies: []policy{{Type: "Pods", Value: 1, Period: 60}}}, Down: &rules{Window: 15, Policies: []policy{{Type: "Pods", Value: 7, Period: 15}, {Type: "Pods", Value: 4, Period: 140}}}, Start: 4, Steps: []step{{Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 30, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 395, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", ReadyAgo: 3600, StartAgo: 310, CPU: 500, Mem: 100, PodCPU: 2000, HasMetric: true, Metric: 2714, MetricAgo: 312, Window: 15}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 355, MetricAgo: 15, Window: 30}}, Values: []int64{4342, 667}}, {Advance: 20, Manual: 29, Pods: []pod{{Name: "p0", Ready: "False", StartAgo: 60, CPU: -1, Mem: 500, Sidecar: true, SidecarCPU: -1, SidecarMem: 1000, HasMetric: true, Metric: 1919, MetricAgo: 30, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1292, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1109, MetricAgo: 15, Window: 30}}, Values: []int64{1981, 662}}, {Advance: 4, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 303, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1471, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 595, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 109, MetricAgo: 15, Window: 30}}, Values: []int64{4992, 2046}, Errs: []int{0}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 471, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 946, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Deleted: true, Ready: "False", ReadyAgo: 400, StartAgo: 60, CPU: 500, Mem: 250, InitCPU: 100, HasMetric: true, Metric: 2725, Window: 60}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 639, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1055, MetricAgo: 15, Window: 30}, {Name: "p5", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1183, MetricAgo: 15, Window: 30}}, Values: []int64{1363, 4037}}, {Advance: 8, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1365, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "False", ReadyAgo: 90, Mem: 500, HasMetric: true, Metric: 1000000000000000000, Window: 30}, {Name: "p2", Phase: "Running", Ready: "False", ReadyAgo: 3600, StartAgo: 290, CPU: 611, Mem: 250, Sidecar: true, SidecarCPU: 1000, SidecarMem: 2793, HasMetric: true, Metric: 2225, MetricAgo: 30, Window: 60}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1396, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 417, MetricAgo: 15, Window: 30}, {Name: "p5", Phase: "Running", Ready: "True", ReadyAgo: 3600, StartAgo: 3600, CPU: 1000, Mem: 100, HasMetric: true, MetricAgo: 60, Window: 30}}, Values: []int64{4184, 1078}}, {Advance: 22, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 274, MetricAgo: 15, Window: 30}, {Name: "p1", ReadyAgo: 90, CPU: 500, Mem: -1, HasMetric: true, Metric: 1225, MetricAgo: 60, Window: 30}}, Values: []int64{4375, 3611}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1174, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 26, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 988, MetricAgo: 15, Window: 30}}, Values: []int64{402, 2190}}}},
		wantClasses: []string{"a sequence in which a reading over its target overflows an int32 proposal"},
	},
	{
		name:        "pod readings whose sum wraps around int64 on upstream and saturates on kube-hpa, both clamped to maxReplicas: the status average and the stabilization that follows differ (-seed 20261201 -case 88027)",
		s:           seqScenario{Min: -1, Max: 1, Metrics: []metricSpec{{Type: "Pods", Target: "AverageValue", Name: "m0", Value: 1000000000000000}}, Start: 17, Steps: []step{{Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 109, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1177, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1465, MetricAgo: 15, Window: 30}}, Values: []int64{138}}, {Advance: 16, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 357, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 230, MetricAgo: 15, Window: 30}}, Values: []int64{1713}}, {Advance: 1, Manual: 3, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1233, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 440, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 468, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 283, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 20, StartAgo: 600, CPU: 100, Mem: 1000, PodCPU: 500, PodMem: 500, HasMetric: true, Metric: 3740, MetricAgo: 10, Window: 60}, {Name: "p5", Phase: "Succeeded", StartAgo: 290, CPU: 1000, Mem: 500, HasMetric: true, Metric: 1015, MetricAgo: 60, Window: 15}}, Values: []int64{2900}, Fault: &fault{Rollout: true, Lag: true}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 716, MetricAgo: 15, Window: 30}, {Name: "p1", Ready: "False", ReadyAgo: 20, StartAgo: 10, CPU: 250, Mem: 100, InitCPU: 100, HasMetric: true, Metric: 9223372036854775807, MetricAgo: 30, Window: 15}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 165, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 283, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 222, MetricAgo: 15, Window: 30}, {Name: "p5", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 335, MetricAgo: 15, Window: 30}}, Values: []int64{207}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 698, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Deleted: true, Ready: "False", ReadyAgo: 5, StartAgo: 290, Mem: 100, Metric: 1002, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1286, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Failed", Ready: "True", ReadyAgo: 20, CPU: 1000, Mem: 1000, HasMetric: true, Metric: -795, MetricAgo: 92, Window: 30}}, Values: []int64{4582}}, {Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Pending", Ready: "False", ReadyAgo: 200, StartAgo: 120, CPU: 1000, Mem: 100, HasMetric: true, Metric: 2259, MetricAgo: 10, Window: 60}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1164, MetricAgo: 15, Window: 30}}, Values: []int64{4362}, Fault: &fault{Person: true, PersonReplicas: 34, Recreate: true}}, {Advance: 5, Manual: -1, Values: []int64{1655}}, {Advance: 20, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "False", ReadyAgo: 3600, StartAgo: 60, CPU: 1371, Mem: 500, Sidecar: true, SidecarCPU: 500, SidecarMem: -1, HasMetric: true, Metric: 715, MetricAgo: 30, Window: 30}}, Values: []int64{1384}}}},
		wantClasses: []string{"a sequence in which pod readings add up beyond int64 milli-units"},
	},
	{
		name:        "a person scales up between kube-hpa's read and its scale to zero, the zero's status write times out: the controllers' zero, not a pause (-seed 20261201 -case 63798)",
		s:           seqScenario{Max: 16, Metrics: []metricSpec{{Type: "External", Target: "AverageValue", Name: "m0", Value: 235658}}, Up: &rules{Window: -1, Policies: []policy{{Type: "Percent", Value: 10, Period: 1523}, {Type: "Pods", Value: 6, Period: 374}}}, Down: &rules{Window: 60, Select: "Max", Policies: []policy{{Type: "Percent", Value: 100, Period: 60}, {Type: "Pods", Value: 4, Period: 60}, {Type: "Percent", Value: 80, Period: 15}}, Tolerance: "0"}, Start: 20, Steps: []step{{Advance: 20, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1036, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 212, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Succeeded", Ready: "False", ReadyAgo: 5, CPU: 1000, Mem: 1000, Sidecar: true, SidecarMem: 1000, HasMetric: true, Metric: 1457, MetricAgo: 30, Window: 60}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 933, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 360, MetricAgo: 15, Window: 30}}, Values: []int64{0}, Fault: &fault{Person: true, PersonReplicas: 3, StatusFail: "timeout"}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Pending", Ready: "True", ReadyAgo: 200, StartAgo: 582, CPU: 250, Mem: 100, HasMetric: true, Metric: 3352, MetricAgo: 10, Window: 60}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1094, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", ReadyAgo: 90, StartAgo: 10, CPU: 250, Mem: 250, Metric: 2091, Window: 60}}, Values: []int64{1085}}, {Advance: 8, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 90, StartAgo: 310, CPU: 500, Metric: 3136, MetricAgo: 60, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 5, StartAgo: 30, CPU: 250, Mem: 1000, Sidecar: true, SidecarCPU: 250, SidecarMem: 500, HasMetric: true, Metric: 201, Window: 60}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1331, MetricAgo: 15, Window: 30}}, Values: []int64{3218}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 284, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3600, StartAgo: 290, CPU: 250, Mem: 250, HasMetric: true, Metric: 980, MetricAgo: 390, Window: 30}, {Name: "p2", Phase: "Failed", Ready: "True", ReadyAgo: 45, StartAgo: 290, CPU: 2958, Mem: 500, HasMetric: true, Metric: 573, MetricAgo: 161, Window: 15}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 29, MetricAgo: 15, Window: 30}}, Values: []int64{2025}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1273, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1442, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 336, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1326, MetricAgo: 15, Window: 30}}, Values: []int64{165}, Fault: &fault{Person: true}}, {Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1459, MetricAgo: 15, Window: 30}}, Values: []int64{450}}}},
		wantClasses: []string{"a status write lost right after the HPA scaled its target to zero"},
	},
	{
		name:        "an overflow leaves the twin at its maximum, where a failing metric stops its scale-down for a window's length while upstream, lower, scales up and remembers it: kube-hpa then scales down past upstream's held count (-seed 1796278193 -case 20122)",
		s:           seqScenario{Min: 1, Max: 22, Metrics: []metricSpec{{Type: "External", Target: "AverageValue", Name: "m0", Value: 9223372036854775807}, {Type: "Object", Target: "Value", Name: "m1", Value: 1000}}, Start: 8, Steps: []step{{Advance: 15, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 997, MetricAgo: 15, Window: 30}}, Values: []int64{1124, 1183}, TwinPods: []pod{{Name: "tp0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 367, MetricAgo: 15, Window: 30}, {Name: "tp1", Phase: "Succeeded", Ready: "True", ReadyAgo: 5, StartAgo: 120, CPU: 250, Mem: 3293, HasMetric: true, Metric: 2676, MetricAgo: 30, Window: 30}, {Name: "tp2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 482, MetricAgo: 15, Window: 30}}, TwinValues: []int64{3658, 3233}}, {Advance: 20, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", ReadyAgo: 20, StartAgo: 471, CPU: 100, Mem: 1925, HasMetric: true, Metric: 91, Window: 15}, {Name: "p1", Phase: "Failed", Deleted: true, Ready: "False", ReadyAgo: 200, StartAgo: 310, Mem: -1, InitCPU: 100, HasMetric: true, Metric: 1983, MetricAgo: 30, Window: 30}}, Values: []int64{1453, 2754}, TwinPods: []pod{{Name: "tp0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 261, MetricAgo: 15, Window: 30}}, TwinValues: []int64{832, 2147}}, {Advance: 20, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3600, StartAgo: 30, CPU: 1000, Mem: 1000, PodCPU: 2000, PodMem: 2000, HasMetric: true, Metric: 420, MetricAgo: 60, Window: 60}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 202, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 537, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1418, MetricAgo: 15, Window: 30}, {Name: "p4", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 755, MetricAgo: 15, Window: 30}}, Values: []int64{2427, 2363}, TwinPods: []pod{{Name: "tp0", Phase: "Succeeded", Ready: "False", ReadyAgo: 233, StartAgo: 310, CPU: 100, Mem: 100, HasMetric: true, Metric: 9223372036854775807, Window: 60}, {Name: "tp1", Phase: "Failed", Ready: "False", ReadyAgo: 400, StartAgo: 600, Mem: 100, HasMetric: true, Metric: 3313, MetricAgo: 60, Window: 30}, {Name: "tp2", Phase: "Running", Deleted: true, Ready: "True", StartAgo: 600, CPU: 100, Mem: 3569, HasMetric: true, Metric: 3257, Window: 60}}, TwinValues: []int64{2345, 297}}, {Advance: 2, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 891, MetricAgo: 15, Window: 30}}, Values: []int64{272, 3719}, TwinPods: []pod{{Name: "tp0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 189, MetricAgo: 15, Window: 30}, {Name: "tp1", Phase: "Running", Ready: "False", StartAgo: 30, CPU: 500, Mem: 540, HasMetric: true, Metric: 2932, MetricAgo: 30, Window: 60}, {Name: "tp2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 609, MetricAgo: 15, Window: 30}, {Name: "tp3", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 951, MetricAgo: 15, Window: 30}}, TwinValues: []int64{932, 1357}}, {Advance: 20, Manual: -1, Pods: []pod{{Name: "p0", Ready: "False", ReadyAgo: 45, StartAgo: 600, CPU: 100, Mem: 1000, Metric: 1883, MetricAgo: 10, Window: 60}, {Name: "p1", Phase: "Running", Ready: "False", ReadyAgo: 20, StartAgo: 310, CPU: 1000, Mem: 250, HasMetric: true, Metric: 2939, MetricAgo: 30, Window: 15}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 5, StartAgo: 310, CPU: 250, Mem: 1350, Sidecar: true, SidecarMem: 500, HasMetric: true, Metric: 161, MetricAgo: 67, Window: 60}, {Name: "p3", Phase: "Running", Ready: "True", StartAgo: 120, CPU: 1000, Mem: 250, HasMetric: true, Metric: 3700, MetricAgo: 205, Window: 60}}, Values: []int64{3156, 595}, TwinValues: []int64{2847, 2367}}, {Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 240, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 1051, MetricAgo: 15, Window: 30}}, Values: []int64{3962, 1661}, Errs: []int{1}, TwinPods: []pod{{Name: "tp0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 78, MetricAgo: 15, Window: 30}, {Name: "tp1", Phase: "Running", Ready: "False", ReadyAgo: 5, StartAgo: 60, CPU: 250, Mem: 1000, PodCPU: 2000, PodMem: 500, HasMetric: true, Metric: 988, MetricAgo: 30, Window: 30}, {Name: "tp2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 271, MetricAgo: 15, Window: 30}}, TwinValues: []int64{951, 3016}}, {Advance: 1, Manual: -1, Pods: []pod{{Name: "p0", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 688, MetricAgo: 15, Window: 30}, {Name: "p1", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 981, MetricAgo: 15, Window: 30}, {Name: "p2", Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600, CPU: 500, Mem: 1000, HasMetric: true, Metric: 804, MetricAgo: 15, Window: 30}, {Name: "p3", Phase: "Running", Ready: "True", ReadyAgo: 90, StartAgo: 3600, CPU: 100, Mem: 500, InitCPU: 100, HasMetric: true, Metric: 1916, MetricAgo: 10, Window: 60}}, Values: []int64{-3666, 736}, Fault: &fault{Rollout: true, Person: true, PersonReplicas: 27, StatusFail: "500"}, TwinValues: []int64{133, 672}}}, Twin: &twin{Max: 20, Shared: []int{0}, Own: []metricSpec{{Type: "External", Target: "AverageValue", Name: "t0", Value: 250}, {Type: "Pods", Target: "AverageValue", Name: "t1", Value: 2000}}, Start: 2}},
		wantClasses: []string{"a sequence in which a reading over its target overflows an int32 proposal"},
	},
	{
		name: "another writer's status content between kube-hpa's read and its status update stays under kube-hpa's pass, as under upstream's pass after that write",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 1, Manual: -1, Values: []int64{6000}, Fault: &fault{StatusWriter: statusWriterRace}},
			{Advance: 2, Manual: -1, Values: []int64{6000}},
		}},
		met: &faultCounts{StatusWriter: 1},
	},
	{
		name: "another writer's status content that no status update of kube-hpa's met lands after the pass in both worlds, and the next passes record over it",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 3, Manual: -1, Values: []int64{3000}, Fault: &fault{StatusWriter: statusWriterRace}},
		}},
		met: &faultCounts{},
	},
	{
		name: "a status write its HPA watch delivers past the next pass has that pass skipped as stale in both, and the HPA comes back a period later",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 3, Manual: -1, Values: []int64{6000}, Fault: &fault{HPALag: true}},
			{Advance: 2, Manual: -1, Values: []int64{2000}},
		}},
	},
	{
		name: "a person's scale that kube-hpa's watch has not delivered turns its scale-up into a conflict, and it decides again from a fresh read",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 2, Manual: 8, Values: []int64{6000}, Fault: &fault{Lag: true}},
		}},
		met: &faultCounts{Lag: 1},
	},
	{
		name: "a person's scale that kube-hpa's watch has not delivered, with no write to meet it, is decided as upstream's pass right before the scale",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 2, Manual: 8, Values: []int64{3000}, Fault: &fault{Lag: true}},
		}},
		met: &faultCounts{},
	},
	{
		name: "a target deleted and created again between passes, with a new UID and 10 replicas, is decided from its new count on both",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 2, Manual: 10, Values: []int64{6000}, Fault: &fault{Recreate: true}},
		}},
		met: &faultCounts{},
	},
	{
		name: "a target created again between kube-hpa's read and its update is decided again from the new object",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 2, Manual: -1, Values: []int64{6000}, Fault: &fault{Person: true, PersonReplicas: 10, Recreate: true}},
		}},
		met: &faultCounts{Person: 1, Recreate: 1},
	},
	{
		name: "a re-creation that kube-hpa's watch has not delivered turns its update into a conflict",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 2, Manual: 10, Values: []int64{6000}, Fault: &fault{Lag: true, Recreate: true}},
		}},
		met: &faultCounts{Lag: 1, Recreate: 1},
	},
	{
		name: "a provider that hangs until kube-hpa's fetch budget fails its metric as upstream's failed fetch does, and the other metric still scales up",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}, {Type: "External", Target: "Value", Name: "m1", Value: 1000}}, Start: 3, Steps: []step{
			{Advance: 2, Manual: -1, Values: []int64{6000, 500}, Fault: &fault{Hang: []int{1}}},
			{Advance: 1, Manual: -1, Values: []int64{6000, 500}},
		}},
		met: &faultCounts{Hang: 2},
	},
	{
		name: "a pass that decides again after another writer's change takes the answers it has: a hanging provider holds it for one budget",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}, {Type: "Object", Target: "AverageValue", Name: "m1", Value: 1000}}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{6000, 500}, Fault: &fault{Rollout: true, Hang: []int{1}}},
			{Advance: 1, Manual: -1, Values: []int64{6000, 500}},
		}},
		met: &faultCounts{Rollout: 1, Hang: 1},
	},
	{
		name: "passes that wait for a hanging provider and rescale still step a 15s policy every period, as upstream's",
		s: seqScenario{Min: 1, Max: 20, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}, {Type: "External", Target: "Value", Name: "m1", Value: 1000}}, Up: &rules{Window: 0, Policies: []policy{{Type: "Pods", Value: 1, Period: 15}}}, Start: 2, Steps: []step{
			{Advance: 4, Manual: -1, Values: []int64{8000, 500}, Fault: &fault{Hang: []int{1}}},
			{Advance: 1, Manual: -1, Values: []int64{8000, 500}},
		}},
		met: &faultCounts{Hang: 4},
	},
	{
		name: "a twin HPA on a Deployment of its own shares the first's External metric and scales on its own pods' cpu, as upstream's, while another writer meets the first's update",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "External", Target: "Value", Name: "m0", Value: 1000}, {Type: "Resource", Target: "Utilization", Name: "cpu", Value: 50}}, Start: 2, Steps: []step{
			{Advance: 2, Manual: -1, Pods: []pod{twinRowPod("p0", 400), twinRowPod("p1", 600)}, Values: []int64{3000, 0}, TwinPods: []pod{twinRowPod("tp0", 900)}, Fault: &fault{Rollout: true}},
			{Advance: 2, Manual: -1, Pods: []pod{twinRowPod("p0", 400), twinRowPod("p1", 600)}, Values: []int64{500, 0}, TwinPods: []pod{twinRowPod("tp0", 100), twinRowPod("tp1", 100)}},
		}, Twin: &twin{Min: 1, Max: 8, Shared: []int{0}, Own: []metricSpec{{Type: "Resource", Target: "Utilization", Name: "cpu", Value: 80}}, Start: 1}},
		met:         &faultCounts{Rollout: 1},
		sharesFetch: true,
	},
	{
		name: "a status write lost with a 500 after a scale to zero leaves upstream paused at zero and kube-hpa scaling up from its own zero",
		s: seqScenario{Min: 0, Max: 10, Metrics: []metricSpec{{Type: "External", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 1, Manual: -1, Values: []int64{0}, Fault: &fault{StatusFail: statusFail500}},
			{Advance: 2, Manual: -1, Values: []int64{0}},
			{Advance: 2, Manual: -1, Values: []int64{4000}},
		}},
		wantClasses: []string{"a status write lost right after the HPA scaled its target to zero"},
	},
	{
		name: "a handover forgets the downscale stabilization window in both worlds: the fresh instances hold the current count a window from their first pass",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{6000}},
			{Advance: 8, Manual: -1, Values: []int64{1000}},
			// Without the handover, the window of the scale-up's
			// recommendation (at 15s) ends at 330s, within this step.
			{Advance: 16, Manual: -1, Values: []int64{1000}, Fault: &fault{Handover: true}},
			{Advance: 8, Manual: -1, Values: []int64{1000}},
		}},
		scales: []int32{6, 6, 6, 1},
	},
	{
		name: "a handover forgets the scale events of a scale-up policy in both worlds: the fresh instances add the policy's pod again within its period",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Up: &rules{Window: 0, Policies: []policy{{Type: "Pods", Value: 1, Period: 600}}}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{10000}},
			{Advance: 2, Manual: -1, Values: []int64{10000}},
			{Advance: 1, Manual: -1, Values: []int64{10000}, Fault: &fault{Handover: true, Rollout: true}},
			{Advance: 2, Manual: -1, Values: []int64{10000}},
		}},
		scales: []int32{4, 4, 5, 5},
		met:    &faultCounts{Rollout: 1},
	},
	{
		name: "a handover after a scale to zero: the fresh instances read their zero from ScaledToZero and scale up from it, as the old ones would",
		s: seqScenario{Min: 0, Max: 10, Metrics: []metricSpec{{Type: "External", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 1, Manual: -1, Values: []int64{0}},
			{Advance: 2, Manual: -1, Values: []int64{0}, Fault: &fault{Handover: true}},
			{Advance: 2, Manual: -1, Values: []int64{4000}, Fault: &fault{Handover: true}},
		}},
		scales:      []int32{3, 0, 0, 4},
		wantClasses: []string{"AverageValue Object or External metric at 0 replicas (reconcile)"},
	},
	{
		name: "a handover after a scale to zero whose status write was lost: upstream's fresh instance, as its old one, reads a pause, kube-hpa its own zero",
		s: seqScenario{Min: 0, Max: 10, Metrics: []metricSpec{{Type: "External", Target: "AverageValue", Name: "m0", Value: 1000}}, Down: &rules{Window: 0}, Start: 3, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}},
			{Advance: 1, Manual: -1, Values: []int64{0}, Fault: &fault{StatusFail: statusFail500}},
			{Advance: 2, Manual: -1, Values: []int64{0}, Fault: &fault{Handover: true}},
			{Advance: 2, Manual: -1, Values: []int64{4000}},
		}},
		wantClasses: []string{"a status write lost right after the HPA scaled its target to zero"},
	},
	{
		name: "a status write that times out after a scale-up is written again by the next pass, as upstream's",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "External", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 2, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{6000}, Fault: &fault{StatusFail: statusFailTimeout}},
			{Advance: 2, Manual: -1, Values: []int64{6000}},
		}},
	},
	{
		name: "a slow fetch from the first step: both stamp the scale-up and the conditions when the fetch answered (the row fails if one world does not wait)",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 1, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{3000}, Fault: &fault{SlowFetch: []int{0}}},
			{Advance: 2, Manual: -1, Values: []int64{3000}, Fault: &fault{SlowFetch: []int{0}}},
		}},
		scales: []int32{3, 3},
	},
	{
		name: "slow fetches throughout a downscale stabilization window: both record their recommendations when the metrics answered and scale down at the same pass",
		s: seqScenario{Min: 1, Max: 10, Metrics: []metricSpec{{Type: "Object", Target: "AverageValue", Name: "m0", Value: 1000}}, Start: 1, Steps: []step{
			{Advance: 1, Manual: -1, Values: []int64{5000}, Fault: &fault{SlowFetch: []int{0}}},
			{Advance: 16, Manual: -1, Values: []int64{1000}, Fault: &fault{SlowFetch: []int{0}}},
			{Advance: 4, Manual: -1, Values: []int64{1000}, Fault: &fault{SlowFetch: []int{0}}},
		}},
	},
}

func TestReconcileRegressions(t *testing.T) {
	for _, tc := range seqRegressions {
		t.Run(tc.name, func(t *testing.T) {
			up, ours := runPair(t, tc.s)
			v := classifySeq(tc.s, up, ours)
			if v.misuse != "" {
				t.Fatalf("allow-list misused: %s", v.misuse)
			}
			if d := v.diff; d != nil {
				t.Fatalf("divergence after step %d (%v):\n  upstream: %s\n  kube-hpa: %s", d.Step, d.Fields, up[d.Step], ours[d.Step])
			}
			if tc.scales != nil {
				for name, obs := range map[string][]observation{"upstream": up, "kube-hpa": ours} {
					if got := scalesOf(obs); !slices.Equal(got, tc.scales) {
						t.Errorf("%s's replicas after each step = %v, want %v", name, got, tc.scales)
					}
				}
			}
			var got []string
			for _, a := range v.by {
				got = append(got, a.Class)
			}
			if !slices.Equal(got, tc.wantClasses) {
				t.Errorf("allowed by %q, want %q", got, tc.wantClasses)
			}
		})
	}
}

// scalesOf is the target's replicas after each step.
func scalesOf(obs []observation) []int32 {
	out := make([]int32, len(obs))
	for i, o := range obs {
		out[i] = o.Scale
	}
	return out
}
