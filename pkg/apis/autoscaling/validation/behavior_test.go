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

package validation

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
)

// TestValidateBehavior pins upstream's rules for spec.behavior, in both
// directions. Tolerance is gated and has its own test.
func TestValidateBehavior(t *testing.T) {
	const (
		up   = "spec.behavior.scaleUp"
		down = "spec.behavior.scaleDown"
	)
	runValidationCases(t, []validationCase{
		{
			name: "a full behavior in both directions is valid",
			hpa: hpa(behavior(
				withSelect(rules(ptr.To[int32](0), podsPolicy(4, 15), percentPolicy(100, 15)), autoscalingv2.MaxChangePolicySelect),
				withSelect(rules(ptr.To[int32](300), percentPolicy(10, 60)), autoscalingv2.MinChangePolicySelect),
			)),
		},
		{
			name: "an empty behavior is valid because both directions are defaulted",
			hpa:  hpa(behavior(nil, nil)),
		},
		{
			name: "a scaleUp rule with only a stabilization window is valid because policies are defaulted",
			hpa:  hpa(behavior(rules(ptr.To[int32](60)), nil)),
		},
		{
			name: "selectPolicy Disabled is valid",
			hpa:  hpa(behavior(nil, withSelect(rules(nil, percentPolicy(100, 15)), autoscalingv2.DisabledPolicySelect))),
		},
		{
			name: "a stabilization window of exactly 3600 seconds is valid",
			hpa:  hpa(behavior(rules(ptr.To[int32](3600)), rules(ptr.To[int32](3600)))),
		},
		{
			name: "a negative scaleUp stabilization window is invalid",
			hpa:  hpa(behavior(rules(ptr.To[int32](-1)), nil)),
			want: []wantErr{invalid(up + ".stabilizationWindowSeconds")},
		},
		{
			name: "a scaleUp stabilization window above 3600 seconds is invalid",
			hpa:  hpa(behavior(rules(ptr.To[int32](3601)), nil)),
			want: []wantErr{invalid(up + ".stabilizationWindowSeconds")},
		},
		{
			name: "a negative scaleDown stabilization window is invalid",
			hpa:  hpa(behavior(nil, rules(ptr.To[int32](-1)))),
			want: []wantErr{invalid(down + ".stabilizationWindowSeconds")},
		},
		{
			name: "a scaleDown stabilization window above 3600 seconds is invalid",
			hpa:  hpa(behavior(nil, rules(ptr.To[int32](3601)))),
			want: []wantErr{invalid(down + ".stabilizationWindowSeconds")},
		},
		{
			name: "an unknown scaleUp selectPolicy is not supported",
			hpa:  hpa(behavior(withSelect(rules(nil), "incorrect"), nil)),
			want: []wantErr{notSupported(up + ".selectPolicy")},
		},
		{
			name: "an empty scaleDown selectPolicy is not supported",
			hpa:  hpa(behavior(nil, withSelect(rules(nil), ""))),
			want: []wantErr{notSupported(down + ".selectPolicy")},
		},
		{
			name: "selectPolicy is case-sensitive",
			hpa:  hpa(behavior(withSelect(rules(nil), "max"), nil)),
			want: []wantErr{notSupported(up + ".selectPolicy")},
		},
		{
			name: "an explicitly empty scaleUp policy list is required to have a policy",
			hpa:  hpa(behavior(&autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{}}, nil)),
			want: []wantErr{required(up + ".policies")},
		},
		{
			name: "an explicitly empty scaleDown policy list is required to have a policy",
			hpa:  hpa(behavior(nil, &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{}})),
			want: []wantErr{required(down + ".policies")},
		},
		{
			name: "an unknown policy type is not supported",
			hpa:  hpa(behavior(rules(nil, autoscalingv2.HPAScalingPolicy{Type: "hm", Value: 1, PeriodSeconds: 15}), nil)),
			want: []wantErr{notSupported(up + ".policies[0].type")},
		},
		{
			name: "an empty policy type is not supported",
			hpa:  hpa(behavior(nil, rules(nil, autoscalingv2.HPAScalingPolicy{Value: 1, PeriodSeconds: 15}))),
			want: []wantErr{notSupported(down + ".policies[0].type")},
		},
		{
			name: "a policy value of 0 is invalid",
			hpa:  hpa(behavior(rules(nil, podsPolicy(0, 15)), nil)),
			want: []wantErr{invalid(up + ".policies[0].value")},
		},
		{
			name: "a negative policy value is invalid",
			hpa:  hpa(behavior(nil, rules(nil, percentPolicy(-1, 15)))),
			want: []wantErr{invalid(down + ".policies[0].value")},
		},
		{
			name: "a policy period of 0 is invalid",
			hpa:  hpa(behavior(rules(nil, podsPolicy(1, 0)), nil)),
			want: []wantErr{invalid(up + ".policies[0].periodSeconds")},
		},
		{
			name: "a negative policy period is invalid",
			hpa:  hpa(behavior(nil, rules(nil, percentPolicy(1, -1)))),
			want: []wantErr{invalid(down + ".policies[0].periodSeconds")},
		},
		{
			name: "a policy period above 1800 seconds is invalid",
			hpa:  hpa(behavior(rules(nil, podsPolicy(1, 1801)), nil)),
			want: []wantErr{invalid(up + ".policies[0].periodSeconds")},
		},
		{
			name: "a policy period of exactly 1800 seconds is valid",
			hpa:  hpa(behavior(rules(nil, podsPolicy(1, 1800)), rules(nil, percentPolicy(1, 1800)))),
		},
		{
			name: "errors of a later policy carry its index",
			hpa:  hpa(behavior(nil, rules(nil, percentPolicy(10, 60), podsPolicy(0, 60)))),
			want: []wantErr{invalid(down + ".policies[1].value")},
		},
		{
			name: "a policy wrong in every field reports each",
			hpa:  hpa(behavior(rules(nil, autoscalingv2.HPAScalingPolicy{Type: "x", Value: -1, PeriodSeconds: 0}), nil)),
			want: []wantErr{
				notSupported(up + ".policies[0].type"), invalid(up + ".policies[0].value"), invalid(up + ".policies[0].periodSeconds"),
			},
		},
		{
			name: "errors in both directions are all reported",
			hpa: hpa(behavior(
				withSelect(rules(ptr.To[int32](-5), podsPolicy(1, 2000)), "Sometimes"),
				rules(ptr.To[int32](4000), percentPolicy(0, 15)),
			)),
			want: []wantErr{
				invalid(up + ".stabilizationWindowSeconds"), notSupported(up + ".selectPolicy"), invalid(up + ".policies[0].periodSeconds"),
				invalid(down + ".stabilizationWindowSeconds"), invalid(down + ".policies[0].value"),
			},
		},
		{
			name: "an update to an invalid behavior is refused",
			old:  hpa(behavior(rules(nil, podsPolicy(1, 15)), nil)),
			hpa:  hpa(behavior(rules(nil, podsPolicy(1, 0)), nil)),
			want: []wantErr{invalid(up + ".policies[0].periodSeconds")},
		},
		{
			name: "a stored object with an invalid behavior is refused",
			op:   stored,
			hpa:  hpa(behavior(nil, rules(ptr.To[int32](-1)))),
			want: []wantErr{invalid(down + ".stabilizationWindowSeconds")},
		},
	})
}
