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
