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

package milli

import (
	"math"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Value is q in thousandths, as resource.Quantity.MilliValue, except
// that a quantity beyond the int64 range saturates at its bound.
// Quantity.MilliValue wraps such a value around: 1e16 reads as 0 and
// 9223372036854775807 as -1000, which would scale a workload down (to zero
// where minReplicas is 0) on a metric that is in fact huge. Every metric
// value, target and request goes through here.
func Value(q resource.Quantity) int64 {
	switch {
	case q.Cmp(*resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)) >= 0:
		return math.MaxInt64
	case q.Cmp(*resource.NewMilliQuantity(math.MinInt64, resource.DecimalSI)) <= 0:
		return math.MinInt64
	default:
		return q.MilliValue()
	}
}

// Add adds two milli-values, sticking at the int64 bounds, so that
// adding up saturated readings keeps them saturated instead of wrapping
// around.
func Add(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	default:
		return a + b
	}
}
