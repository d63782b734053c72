//go:build !intree || nofallback

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

import autoscalingv2 "k8s.io/api/autoscaling/v2"

// setFallback has nowhere to put a fallback: the stock native type has no
// such field. Only the intree build plays fallback sequences.
func setFallback(_ *autoscalingv2.ExternalMetricSource, f *fallbackSpec) {
	if f != nil {
		panic("a fallback needs the intree build: go test -tags intree with hack/differential-intree.sh's go.mod")
	}
}
