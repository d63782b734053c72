//go:build !intree

package differential

import autoscalingv2 "k8s.io/api/autoscaling/v2"

// setFallback has nowhere to put a fallback: the stock native type has no
// such field. Only the intree build plays fallback sequences.
func setFallback(_ *autoscalingv2.ExternalMetricSource, f *fallbackSpec) {
	if f != nil {
		panic("a fallback needs the intree build: go test -tags intree with hack/differential-intree.sh's go.mod")
	}
}
