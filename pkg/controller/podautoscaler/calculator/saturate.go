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

	"github.com/kube-hpa/kube-hpa/pkg/milli"
)

// Readings arrive as int64 milli-values that saturate at the int64 bounds
// (metrics.MilliValue), so a huge reading is MaxInt64. The arithmetic on
// them must keep it huge: a sum or product that wrapped around would turn
// it into a small or negative number and scale the workload down. Within
// the range where nothing overflows, every function here gives upstream's
// result exactly.

// valueTargetTotal sums the series of an External metric with a Value
// target as upstream does: once the sum would pass MaxInt64 it is MaxInt64,
// and later series no longer count. (Upstream lets a negative sum wrap
// around; it sticks at MinInt64 here.)
func valueTargetTotal(values []int64) int64 {
	var sum int64
	for _, v := range values {
		if v > 0 && sum > math.MaxInt64-v {
			return math.MaxInt64
		}
		sum = milli.Add(sum, v)
	}
	return sum
}

// averageValueTargetTotal sums the series of an External metric with an
// AverageValue target as upstream does: a running sum that goes negative is
// taken for an overflow and reads as MaxInt64, so a negative series (or a
// sum past MaxInt64) asks for the most replicas.
func averageValueTargetTotal(values []int64) int64 {
	var sum int64
	for _, v := range values {
		if v > 0 && sum > math.MaxInt64-v {
			return math.MaxInt64
		}
		sum += v
		if sum < 0 {
			return math.MaxInt64
		}
	}
	return sum
}

// averagePerReplica is total shared among n > 0 replicas, rounded up, in
// upstream's floating point; a total that float64 cannot tell from
// MaxInt64 reads as MaxInt64, as upstream reports an External total.
func averagePerReplica(total int64, n int32) int64 {
	if float64(total) >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(math.Ceil(float64(total) / float64(n)))
}

// utilizationPercent is usage as a whole percentage of request (> 0),
// truncated, as upstream computes it in integers; where upstream's usage x
// 100 would wrap, it is computed in floating point and sticks at the int64
// bounds. Upstream then converts it to int32, which wraps too: the status
// field is an int32 (see reportedUtilization), the ratio is not.
func utilizationPercent(usage, request int64) int64 {
	if usage <= math.MaxInt64/100 && usage >= math.MinInt64/100 {
		return usage * 100 / request
	}
	return floatToInt64(float64(usage) / float64(request) * 100)
}

// reportedUtilization is a utilization percentage as the int32 of the
// HPA's status, sticking at the int32 bounds.
func reportedUtilization(percent int64) int32 {
	return int32(min(max(percent, math.MinInt32), math.MaxInt32))
}

// mulDivSat is a x b / c for a >= 0, b >= 0 and c > 0, sticking at
// MaxInt64 where a x b would overflow.
func mulDivSat(a, b, c int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return floatToInt64(float64(a) / float64(c) * float64(b))
	}
	return a * b / c
}

// floatToInt64 converts f to int64, truncating, and sticks at the int64
// bounds where Go's conversion is undefined.
func floatToInt64(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	default:
		return int64(f)
	}
}
