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
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestMilliValue(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64
	}{
		{name: "1e30 average value saturates to max int64 milli", in: "1e30", want: math.MaxInt64},
		{name: "1e16 saturates to max int64 milli instead of reading as 0", in: "1e16", want: math.MaxInt64},
		{name: "9223372036854775807 saturates to max int64 milli instead of reading as -1000", in: "9223372036854775807", want: math.MaxInt64},
		{name: "8Ei saturates to max int64 milli", in: "8Ei", want: math.MaxInt64},
		{name: "a value just past the bound saturates", in: "9223372036854775.808", want: math.MaxInt64},
		{name: "the largest milli-value reads exactly", in: "9223372036854775.807", want: math.MaxInt64},
		{name: "-1e30 saturates to min int64 milli", in: "-1e30", want: math.MinInt64},
		{name: "-1e16 saturates to min int64 milli", in: "-1e16", want: math.MinInt64},
		{name: "1e15 reads exactly", in: "1e15", want: 1e18},
		{name: "a plain value reads in thousandths", in: "42", want: 42000},
		{name: "a milli value reads as is", in: "250m", want: 250},
		{name: "a fraction of a milli rounds up, as Quantity.MilliValue", in: "1.5m", want: 2},
		{name: "a negative fraction of a milli rounds away from zero, as Quantity.MilliValue", in: "-1.5m", want: -2},
		{name: "zero reads as zero", in: "0", want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Value(resource.MustParse(tc.in)); got != tc.want {
				t.Errorf("Value(%s) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestAddMilli(t *testing.T) {
	tests := []struct {
		name string
		a, b int64
		want int64
	}{
		{name: "adds", a: 2, b: 3, want: 5},
		{name: "adds a negative", a: 2, b: -3, want: -1},
		{name: "two saturated readings stay at max int64", a: math.MaxInt64, b: math.MaxInt64, want: math.MaxInt64},
		{name: "a sum past max int64 sticks there instead of wrapping", a: math.MaxInt64 - 1, b: 2, want: math.MaxInt64},
		{name: "a sum past min int64 sticks there instead of wrapping", a: math.MinInt64, b: -1, want: math.MinInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Add(tc.a, tc.b); got != tc.want {
				t.Errorf("Add(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}
