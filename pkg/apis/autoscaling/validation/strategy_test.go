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

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// TestValidateFallbackStrategy pins the rules of fallback.strategy: Static
// (or unset) is valid wherever a fallback is, UseMax and UseMin need the
// HPAExternalMetricFallbackStrategy gate unless the old object already used
// one, and any other value is refused with the allowed ones.
func TestValidateFallbackStrategy(t *testing.T) {
	const strategy = "spec.metrics[0].external.fallback.strategy"
	with := func(s v2.FallbackStrategy) mutation {
		m := withFallback(queueMetric(), nil, 5)
		m.External.Fallback.Strategy = s
		return metrics(m)
	}
	bothOn := gateSetting{features.HPAExternalMetricFallback: true, features.HPAExternalMetricFallbackStrategy: true}
	strategyOff := gateSetting{features.HPAExternalMetricFallback: true, features.HPAExternalMetricFallbackStrategy: false}
	fallbackOffStrategyOn := gateSetting{features.HPAExternalMetricFallback: false, features.HPAExternalMetricFallbackStrategy: true}
	runValidationCases(t, []validationCase{
		{name: "UseMax is valid on create when both gates are on", gates: bothOn, hpa: hpa(with(v2.FallbackStrategyUseMax))},
		{name: "UseMin is valid on create when both gates are on", gates: bothOn, hpa: hpa(with(v2.FallbackStrategyUseMin))},
		{name: "Static is valid when both gates are on", gates: bothOn, hpa: hpa(with(v2.FallbackStrategyStatic))},
		{name: "Static is valid when the strategy gate is off", gates: strategyOff, hpa: hpa(with(v2.FallbackStrategyStatic))},
		{name: "an unset strategy is valid when the strategy gate is off", gates: strategyOff, hpa: hpa(with(""))},
		{
			name: "UseMax is forbidden on create when the strategy gate is off", gates: strategyOff,
			hpa: hpa(with(v2.FallbackStrategyUseMax)), want: []wantErr{forbidden(strategy)},
		},
		{
			name: "UseMin is forbidden on create when the strategy gate is off", gates: strategyOff,
			hpa: hpa(with(v2.FallbackStrategyUseMin)), want: []wantErr{forbidden(strategy)},
		},
		{
			name: "UseMax is forbidden by the default gates, as its fallback is", gates: gateSetting{},
			hpa: hpa(with(v2.FallbackStrategyUseMax)), want: []wantErr{forbidden("spec.metrics[0].external.fallback")},
		},
		{
			name: "the strategy gate alone does not allow a fallback", gates: fallbackOffStrategyOn,
			hpa: hpa(with(v2.FallbackStrategyUseMin)), want: []wantErr{forbidden("spec.metrics[0].external.fallback")},
		},
		{
			name: "an unknown strategy is not supported when both gates are on", gates: bothOn,
			hpa: hpa(with("UseAverage")), want: []wantErr{notSupported(strategy)},
		},
		{
			name: "an unknown strategy is not supported when the strategy gate is off", gates: strategyOff,
			hpa: hpa(with("useMax")), want: []wantErr{notSupported(strategy)},
		},
		{
			name: "UseMax kept on update stays valid after the strategy gate is turned off", gates: strategyOff,
			old: hpa(with(v2.FallbackStrategyUseMax)), hpa: hpa(with(v2.FallbackStrategyUseMax), maxReplicas(20)),
		},
		{
			name: "UseMax changed to UseMin on update stays valid when the old object used a strategy", gates: strategyOff,
			old: hpa(with(v2.FallbackStrategyUseMax)), hpa: hpa(with(v2.FallbackStrategyUseMin)),
		},
		{
			name: "a ratcheted strategy is still checked for its value", gates: strategyOff,
			old: hpa(with(v2.FallbackStrategyUseMax)), hpa: hpa(with("Highest")), want: []wantErr{notSupported(strategy)},
		},
		{
			name: "UseMin added on update is forbidden when the old object had Static and the strategy gate is off", gates: strategyOff,
			old: hpa(with(v2.FallbackStrategyStatic)), hpa: hpa(with(v2.FallbackStrategyUseMin)), want: []wantErr{forbidden(strategy)},
		},
		{
			name: "UseMin added on update is valid when the strategy gate is on", gates: bothOn,
			old: hpa(with(v2.FallbackStrategyStatic)), hpa: hpa(with(v2.FallbackStrategyUseMin)),
		},
		{
			name: "a strategy set back to Static on update is valid when the strategy gate is off", gates: strategyOff,
			old: hpa(with(v2.FallbackStrategyUseMax)), hpa: hpa(with(v2.FallbackStrategyStatic)),
		},
		{
			name: "a stored UseMin is not refused after the strategy gate is turned off", gates: strategyOff,
			op: stored, hpa: hpa(with(v2.FallbackStrategyUseMin)),
		},
		{
			name: "a stored unknown strategy is refused", gates: strategyOff,
			op: stored, hpa: hpa(with("Sometimes")), want: []wantErr{notSupported(strategy)},
		},
	})
}
