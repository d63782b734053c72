//go:build !intree

package differential

import "testing"

// withFallbackGate: stock upstream has no HPAExternalMetricFallback; the
// fallback sequences need the intree build (hack/differential-intree.sh).
func withFallbackGate(t *testing.T) {
	t.Skip("fallback sequences need the intree build: hack/differential-intree.sh")
}
