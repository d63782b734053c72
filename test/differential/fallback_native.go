//go:build intree

package differential

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
)

// setFallback puts f on the native External metric source of the patched
// k8s.io/api, where both the patched upstream controller and kube-hpa's
// native source read it.
func setFallback(src *autoscalingv2.ExternalMetricSource, f *fallbackSpec) {
	if f == nil {
		return
	}
	src.Fallback = &autoscalingv2.ExternalMetricFallback{FailureDurationSeconds: ptr.To(f.Duration), Replicas: f.Replicas}
}
