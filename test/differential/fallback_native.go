//go:build intree && !nofallback

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
