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

package calculator

import (
	"math"
	"testing"
)

func TestSaturatingArithmetic(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		{name: "value target total adds every series", got: valueTargetTotal([]int64{3000, 5600}), want: 8600},
		{name: "value target total adds negative series", got: valueTargetTotal([]int64{3000, -5600}), want: -2600},
		{name: "value target total stops at MaxInt64: later series no longer count, as upstream", got: valueTargetTotal([]int64{maxI, 1, -5}), want: maxI},
		{name: "value target total reaching MaxInt64 exactly still counts later series, as upstream", got: valueTargetTotal([]int64{maxI, -5}), want: maxI - 5},
		{name: "value target total sticks at MinInt64 instead of wrapping", got: valueTargetTotal([]int64{minI, -1}), want: minI},
		{name: "average value target total adds every series", got: averageValueTargetTotal([]int64{4300, 4300}), want: 8600},
		{name: "average value target: a negative running sum reads as overflow, MaxInt64, as upstream", got: averageValueTargetTotal([]int64{-1}), want: maxI},
		{name: "average value target: a negative series within a positive sum counts", got: averageValueTargetTotal([]int64{5000, -1000}), want: 4000},
		{name: "average value target: going negative midway reads as MaxInt64 whatever follows", got: averageValueTargetTotal([]int64{1000, -2000, 5000}), want: maxI},
		{name: "average value target total past MaxInt64 is MaxInt64", got: averageValueTargetTotal([]int64{maxI, 1}), want: maxI},
		{name: "average per replica rounds up", got: averagePerReplica(8600, 3), want: 2867},
		{name: "average per replica of MaxInt64 is MaxInt64, as upstream reports it", got: averagePerReplica(maxI, 2), want: maxI},
		{name: "average per replica of a negative total rounds towards zero", got: averagePerReplica(-7, 2), want: -3},
		{name: "utilization percent truncates as upstream", got: utilizationPercent(199, 100), want: 199},
		{name: "utilization percent of usage that would overflow x100 is computed in floating point", got: utilizationPercent(maxI, 1000), want: 922337203685477632},
		{name: "utilization percent of a saturated usage over a 1m request sticks at MaxInt64", got: utilizationPercent(maxI, 1), want: maxI},
		{name: "utilization percent past int32 is kept for the ratio", got: utilizationPercent(1<<40, 1), want: 100 << 40},
		{name: "reported utilization past int32 sticks at MaxInt32 instead of wrapping", got: int64(reportedUtilization(100 << 40)), want: math.MaxInt32},
		{name: "reported utilization below int32 sticks at MinInt32", got: int64(reportedUtilization(math.MinInt64)), want: math.MinInt32},
		{name: "utilization percent of huge usage and huge request is their ratio", got: utilizationPercent(maxI, maxI), want: 100},
		{name: "mulDivSat computes a x b / c", got: mulDivSat(250, 150, 100), want: 375},
		{name: "mulDivSat sticks at MaxInt64", got: mulDivSat(maxI, 150, 100), want: maxI},
		{name: "floatToInt64 maps NaN to 0", got: floatToInt64(math.NaN()), want: 0},
		{name: "floatToInt64 sticks at MinInt64", got: floatToInt64(-1e30), want: minI},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
}
