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

package podautoscaler

import (
	"testing"
	"time"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// strategyHPA has queue_depth with a fallback of replicas under strategy,
// failing for 200 s already: its fallback is due on the first pass.
func strategyHPA(minReplicas, replicas int32, strategy v2.FallbackStrategy) *v2.HorizontalPodAutoscaler {
	m := withFallback(externalAverage("queue_depth", "10"), 180, replicas)
	m.External.Fallback.Strategy = strategy
	return withStatusMetrics(newHPA(minReplicas, 30, m),
		persistedFailure("queue_depth", nil, v2.FallbackStatusNormal, testStart.Add(-200*time.Second)))
}

const staticActivation = "Normal ExternalMetricFallbackActivated Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback replica count: 10"

// TestFallbackStrategy follows one pass of a due fallback under each
// strategy, the target above and below the fallback's replicas, and with
// the strategy gate off, which must give back Static. The counts below the
// fallback (6) are within one step of upstream's scale-up policy.
func TestFallbackStrategy(t *testing.T) {
	cases := []struct {
		name        string
		strategy    v2.FallbackStrategy
		strategyOff bool
		current     int32
		wantUpdates []int32
		wantMessage string
		wantEvent   string
	}{
		{name: "Static scales a larger fleet down to replicas", strategy: v2.FallbackStrategyStatic, current: 20,
			wantUpdates: []int32{10}, wantMessage: "external metrics using their fallback replica count: queue_depth", wantEvent: staticActivation},
		{name: "UseMax keeps a larger fleet: an outage never scales down", strategy: v2.FallbackStrategyUseMax, current: 20,
			wantMessage: "external metrics using their fallback replica count: queue_depth (strategy UseMax, proposing 20 replicas)",
			wantEvent:   "Normal ExternalMetricFallbackActivated Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback strategy UseMax: proposing 20 replicas (fallback replica count 10, current replicas 20)"},
		{name: "UseMax raises a smaller fleet to replicas", strategy: v2.FallbackStrategyUseMax, current: 6, wantUpdates: []int32{10},
			wantMessage: "external metrics using their fallback replica count: queue_depth (strategy UseMax, proposing 10 replicas)",
			wantEvent:   "Normal ExternalMetricFallbackActivated Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback strategy UseMax: proposing 10 replicas (fallback replica count 10, current replicas 6)"},
		{name: "UseMin keeps a smaller fleet: an outage never scales up", strategy: v2.FallbackStrategyUseMin, current: 6,
			wantMessage: "external metrics using their fallback replica count: queue_depth (strategy UseMin, proposing 6 replicas)",
			wantEvent:   "Normal ExternalMetricFallbackActivated Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback strategy UseMin: proposing 6 replicas (fallback replica count 10, current replicas 6)"},
		{name: "UseMin lowers a larger fleet to replicas", strategy: v2.FallbackStrategyUseMin, current: 20, wantUpdates: []int32{10},
			wantMessage: "external metrics using their fallback replica count: queue_depth (strategy UseMin, proposing 10 replicas)",
			wantEvent:   "Normal ExternalMetricFallbackActivated Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback strategy UseMin: proposing 10 replicas (fallback replica count 10, current replicas 20)"},
		{name: "UseMax with the strategy gate off is Static", strategy: v2.FallbackStrategyUseMax, strategyOff: true, current: 20,
			wantUpdates: []int32{10}, wantMessage: "external metrics using their fallback replica count: queue_depth", wantEvent: staticActivation},
		{name: "UseMin with the strategy gate off is Static", strategy: v2.FallbackStrategyUseMin, strategyOff: true, current: 6,
			wantUpdates: []int32{10}, wantMessage: "external metrics using their fallback replica count: queue_depth", wantEvent: staticActivation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := noDownscaleWindow(withGates(features.HPAExternalMetricFallback, true, features.HPAExternalMetricFallbackStrategy, !tc.strategyOff))
			h := newHarness(t, strategyHPA(1, 10, tc.strategy), opts)
			h.scales.setScale(tc.current, tc.current, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
			h.mustReconcile()
			h.assertUpdates(tc.wantUpdates...)
			hpa := h.hpa(testHPAName)
			assertFallbackStatus(t, hpa, "queue_depth", v2.FallbackStatusFallback, testStart.Add(-200*time.Second))
			if c := fallbackCondition(t, hpa); c.Reason != "FallbackActive" || c.Message != tc.wantMessage {
				t.Errorf("ExternalMetricFallbackActive = %s %q, want FallbackActive %q", c.Reason, c.Message, tc.wantMessage)
			}
			if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 1 || got[0] != tc.wantEvent {
				t.Errorf("activation events = %q, want %q", got, tc.wantEvent)
			}
		})
	}
}

// TestFallbackStrategyAtZero: from zero the strategies follow the zero
// rules: a zero this controller chose may be left (UseMax proposes
// replicas; UseMin proposes zero and stays), a person's zero never is. The
// fallback (3) is within one step of upstream's scale-up policy from zero.
func TestFallbackStrategyAtZero(t *testing.T) {
	opts := withGates(features.HPAExternalMetricFallback, true, features.HPAExternalMetricFallbackStrategy, true, features.HPAScaleToZero, true)
	cases := []struct {
		name         string
		strategy     v2.FallbackStrategy
		scaledToZero bool
		wantUpdates  []int32
		wantAsked    bool
	}{
		{name: "UseMax leaves the controller's zero for replicas", strategy: v2.FallbackStrategyUseMax, scaledToZero: true, wantUpdates: []int32{3}, wantAsked: true},
		{name: "UseMin keeps the controller's zero", strategy: v2.FallbackStrategyUseMin, scaledToZero: true, wantAsked: true},
		{name: "UseMax never leaves a person's zero", strategy: v2.FallbackStrategyUseMax},
		{name: "UseMin never leaves a person's zero", strategy: v2.FallbackStrategyUseMin},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hpa := strategyHPA(0, 3, tc.strategy)
			if tc.scaledToZero {
				hpa = withConditions(hpa, scaledToZeroStatus(testStart.Add(-time.Hour)))
			}
			h := newHarness(t, hpa, opts)
			h.scales.setScale(0, 0, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Err: errBoom})
			h.mustReconcile()
			h.assertUpdates(tc.wantUpdates...)
			if asked := len(h.metrics.Requests()) > 0; asked != tc.wantAsked {
				t.Errorf("metrics asked = %v, want %v", asked, tc.wantAsked)
			}
			activations := h.eventsWithReason("ExternalMetricFallbackActivated")
			if tc.wantAsked != (len(activations) == 1) {
				t.Errorf("activation events = %q", activations)
			}
			if !tc.wantAsked {
				if got := h.hpa(testHPAName).Status.DesiredReplicas; got != 0 {
					t.Errorf("desiredReplicas = %d at a person's zero, want 0", got)
				}
			}
		})
	}
}
