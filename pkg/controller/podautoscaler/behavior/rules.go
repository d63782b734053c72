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

package behavior

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	kubehpav2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// resolvedRules are the scaling rules of one direction with every field resolved.
type resolvedRules struct {
	window       time.Duration
	selectPolicy autoscalingv2.ScalingPolicySelect
	policies     []autoscalingv2.HPAScalingPolicy
}

// scaleUpRules resolves the scale-up rules of behavior; unset fields take
// upstream's defaults.
func scaleUpRules(behavior *autoscalingv2.HorizontalPodAutoscalerBehavior) resolvedRules {
	r := behavior.ScaleUp
	if !complete(r) || r.StabilizationWindowSeconds == nil {
		r = kubehpav2.ScaleUpRules(r)
	}
	return resolvedRules{
		window:       seconds(*r.StabilizationWindowSeconds),
		selectPolicy: *r.SelectPolicy,
		policies:     r.Policies,
	}
}

// scaleDownRules resolves the scale-down rules of behavior; unset fields take
// upstream's defaults, and an unset window takes flagWindow.
func scaleDownRules(behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, flagWindow time.Duration) resolvedRules {
	r := behavior.ScaleDown
	if !complete(r) {
		r = kubehpav2.ScaleDownRules(r)
	}
	window := flagWindow
	if r.StabilizationWindowSeconds != nil {
		window = seconds(*r.StabilizationWindowSeconds)
	}
	return resolvedRules{
		window:       window,
		selectPolicy: *r.SelectPolicy,
		policies:     r.Policies,
	}
}

// complete tells whether r has its policies and selectPolicy set, so that
// the defaults (which copy r) are not needed: an API server or
// kubehpav2.SetDefaults has usually filled them already.
func complete(r *autoscalingv2.HPAScalingRules) bool {
	return r != nil && r.SelectPolicy != nil && r.Policies != nil
}

// longestPeriod returns the longest policy period of r.
func longestPeriod(r resolvedRules) time.Duration {
	var longest int32
	for _, p := range r.policies {
		longest = max(longest, p.PeriodSeconds)
	}
	return seconds(longest)
}

func seconds(s int32) time.Duration {
	return time.Duration(s) * time.Second
}
