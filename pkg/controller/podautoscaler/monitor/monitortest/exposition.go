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

// Package monitortest writes the Prometheus text exposition that tests of the
// controller's metrics compare against, so that the monitor's tests and the
// binary's /metrics tests spell a histogram the same way.
package monitortest

import (
	"fmt"
	"strings"
)

// Histogram writes the exposition of one series of a histogram whose count
// observations are all equal to value, so they fall in every bucket from
// firstBucket on.
func Histogram(name, labels string, buckets []string, count int, value float64, firstBucket int) string {
	var b strings.Builder
	for i, le := range buckets {
		n := 0
		if i >= firstBucket {
			n = count
		}
		fmt.Fprintf(&b, "%s_bucket{%s,le=%q} %d\n", name, labels, le, n)
	}
	fmt.Fprintf(&b, "%s_bucket{%s,le=\"+Inf\"} %d\n", name, labels, count)
	fmt.Fprintf(&b, "%s_sum{%s} %g\n", name, labels, float64(count)*value)
	fmt.Fprintf(&b, "%s_count{%s} %d\n", name, labels, count)
	return b.String()
}
