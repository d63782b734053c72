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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Conditions of the limits, with upstream's messages.
var (
	condScaleUpLimit = condLimited("ScaleUpLimit",
		"the desired replica count is increasing faster than the maximum scale rate")
	condScaleDownLimit = condLimited("ScaleDownLimit",
		"the desired replica count is decreasing faster than the maximum scale rate")
	condTooManyReplicas = condLimited("TooManyReplicas",
		"the desired replica count is more than the maximum replica count")
	condTooFewReplicas = condLimited("TooFewReplicas",
		"the desired replica count is less than the minimum replica count")
	condScaleUpStabilized = wantCond{autoscalingv2.AbleToScale, corev1.ConditionTrue, "ScaleUpStabilized",
		"recent recommendations were lower than current one, applying the lowest recent recommendation"}
)

func rules(window *int32, selectPolicy *autoscalingv2.ScalingPolicySelect, policies ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: window, SelectPolicy: selectPolicy, Policies: policies}
}

func podsPolicy(value, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: value, PeriodSeconds: period}
}

func percentPolicy(value, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: value, PeriodSeconds: period}
}

func behaviorOf(up, down *autoscalingv2.HPAScalingRules) *v2.HorizontalPodAutoscalerBehavior {
	return &v2.HorizontalPodAutoscalerBehavior{ScaleUp: up, ScaleDown: down}
}

// limitedPass is the outcome of one pass from 3 replicas whose
// recommendation the limits changed to n.
func limitedPass(n int32, reason string, limit wantCond, utilization int32) parityOutcome {
	o := parityOutcome{
		updates: []int32{n},
		current: 3, desired: n,
		metrics:         []v2.MetricStatus{cpuUtilizationStatus(utilization, int64(utilization))},
		conditions:      []wantCond{condRescaled(n), condValidMetric(cpuUtilizationName), limit, condNotScaledToZero},
		events:          []string{rescaleEvent(n, reason)},
		reconciliations: []string{"scale_up/none"},
		computations:    []string{"none/none/Resource"},
		statusWrites:    1,
		lastScaleTime:   testStart,
	}
	if n < 3 {
		o.reconciliations = []string{"scale_down/none"}
	}
	return o
}

func TestParityBehavior(t *testing.T) {
	cpuUp := cpuUtilizationName + " above target"
	zero := ptr.To[int32](0)
	disabled := ptr.To(autoscalingv2.DisabledPolicySelect)
	minPolicy := ptr.To(autoscalingv2.MinChangePolicySelect)
	// 3 pods at 333% of a 50% target ask for 20 replicas; at 10%, for 1.
	hot := threeReplicas(storedReplicas(3), cpuUsage(333, 333, 333))
	cold := threeReplicas(storedReplicas(3), cpuUsage(10, 10, 10))

	heldDown := func(able, limit wantCond) parityOutcome {
		return parityOutcome{
			current: 3, desired: 3,
			metrics:         []v2.MetricStatus{cpuUtilizationStatus(10, 10)},
			conditions:      []wantCond{able, condValidMetric(cpuUtilizationName), limit},
			reconciliations: []string{"none/none"},
			computations:    []string{"scale_down/none/Resource"},
			statusWrites:    1,
		}
	}
	with := func(o parityOutcome, f func(*parityOutcome)) parityOutcome { f(&o); return o }

	runParity(t, []parityScenario{
		{
			name:  "legacy: a scale-down waits while the downscale window holds a higher recommendation",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: cold,
			want:  heldDown(condScaleDownStabilized, condWithinRange),
		},
		{
			name:  "legacy: a scale-down happens once the downscale window has passed",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: cold,
			// Upstream still counts a recommendation exactly one window old.
			run: passesEvery(6, time.Minute+time.Second),
			want: parityOutcome{
				updates: []int32{1},
				current: 3, desired: 1,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(10, 10)},
				conditions:      []wantCond{condRescaled(1), condValidMetric(cpuUtilizationName), condWithinRange, condNotScaledToZero},
				events:          []string{rescaleEvent(1, "All metrics below target")},
				reconciliations: []string{"none/none", "none/none", "none/none", "none/none", "none/none", "scale_down/none"},
				computations: []string{"scale_down/none/Resource", "scale_down/none/Resource", "scale_down/none/Resource",
					"scale_down/none/Resource", "scale_down/none/Resource", "scale_down/none/Resource"},
				statusWrites:  2,
				lastScaleTime: afterStart(5 * (time.Minute + time.Second)),
			},
		},
		{
			name:  "legacy: the downscale stabilization flag sets the window",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			opts:  harnessOptions{downscaleStabilizationWindow: ptr.To(time.Minute)},
			setup: cold,
			run:   passesEvery(2, time.Minute+time.Second),
			want: with(limitedPass(1, "All metrics below target", condWithinRange, 10), func(o *parityOutcome) {
				o.reconciliations = []string{"none/none", "scale_down/none"}
				o.computations = []string{"scale_down/none/Resource", "scale_down/none/Resource"}
				o.statusWrites = 2
				o.lastScaleTime = afterStart(time.Minute + time.Second)
			}),
		},
		{
			name:  "legacy: a scale-up goes at most to twice the current replicas",
			hpa:   newHPA(1, 30, cpuUtilization(50)),
			setup: hot,
			want:  with(limitedPass(6, cpuUp, condScaleUpLimit, 333), func(o *parityOutcome) { o.computations = []string{"scale_up/none/Resource"} }),
		},
		{
			name:  "legacy: a scale-up from one replica may go to four",
			hpa:   newHPA(1, 30, cpuUtilization(50)),
			setup: []func(*harness){atScale(1, 1), readyPods(1), storedReplicas(1), cpuUsage(500)},
			want: parityOutcome{
				updates: []int32{4},
				current: 1, desired: 4,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(500, 500)},
				conditions:      []wantCond{condRescaled(4), condValidMetric(cpuUtilizationName), condScaleUpLimit, condNotScaledToZero},
				events:          []string{rescaleEvent(4, cpuUp)},
				reconciliations: []string{"scale_up/none"},
				computations:    []string{"scale_up/none/Resource"},
				statusWrites:    1,
				lastScaleTime:   testStart,
			},
		},
		{
			name:  "legacy: maxReplicas below the scale-up limit clamps with TooManyReplicas",
			hpa:   newHPA(1, 5, cpuUtilization(50)),
			setup: hot,
			want:  with(limitedPass(5, cpuUp, condTooManyReplicas, 333), func(o *parityOutcome) { o.computations = []string{"scale_up/none/Resource"} }),
		},
		{
			name:  "legacy: minReplicas clamps a scale-down with TooFewReplicas",
			hpa:   newHPA(2, 10, cpuUtilization(50)),
			opts:  noDownscaleStabilizationWindow,
			setup: cold,
			want:  with(limitedPass(2, "All metrics below target", condTooFewReplicas, 10), func(o *parityOutcome) { o.computations = []string{"scale_down/none/Resource"} }),
		},
		{
			name:  "behavior: a Pods policy limits a jump with ScaleUpLimit",
			hpa:   withBehavior(newHPA(1, 30, cpuUtilization(50)), behaviorOf(rules(nil, nil, podsPolicy(2, 60)), nil)),
			setup: hot,
			want:  with(limitedPass(5, cpuUp, condScaleUpLimit, 333), func(o *parityOutcome) { o.computations = []string{"scale_up/none/Resource"} }),
		},
		{
			name:  "behavior: a Pods policy counts the period's earlier scale-ups",
			hpa:   withBehavior(newHPA(1, 30, cpuUtilization(50)), behaviorOf(rules(nil, nil, podsPolicy(2, 60)), nil)),
			setup: hot,
			run: func(h *harness) error {
				for _, step := range []time.Duration{0, 15 * time.Second, 45 * time.Second} {
					h.clock.Step(step)
					if err := h.reconcile(testHPAName); err != nil {
						return err
					}
				}
				return nil
			},
			// 3 -> 5 at once; at +15s the period's +2 is spent (held at 5,
			// still limited); at +60s the first event has left the period.
			want: parityOutcome{
				updates: []int32{5, 7},
				current: 5, desired: 7,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(333, 333)},
				conditions:      []wantCond{condRescaled(7), condValidMetric(cpuUtilizationName), condScaleUpLimit, condNotScaledToZero},
				events:          []string{rescaleEvent(5, cpuUp), rescaleEvent(7, cpuUp)},
				reconciliations: []string{"scale_up/none", "none/none", "scale_up/none"},
				computations:    []string{"scale_up/none/Resource", "scale_up/none/Resource", "scale_up/none/Resource"},
				statusWrites:    3,
				lastScaleTime:   afterStart(time.Minute),
			},
		},
		{
			name:  "behavior: a Percent policy limits a jump to a share of the current replicas",
			hpa:   withBehavior(newHPA(1, 30, cpuUtilization(50)), behaviorOf(rules(nil, nil, percentPolicy(50, 60)), nil)),
			setup: hot,
			want:  with(limitedPass(5, cpuUp, condScaleUpLimit, 333), func(o *parityOutcome) { o.computations = []string{"scale_up/none/Resource"} }),
		},
		{
			name:  "behavior: selectPolicy Min keeps the policy allowing the smallest change",
			hpa:   withBehavior(newHPA(1, 30, cpuUtilization(50)), behaviorOf(rules(nil, minPolicy, podsPolicy(1, 60), percentPolicy(100, 60)), nil)),
			setup: hot,
			want:  with(limitedPass(4, cpuUp, condScaleUpLimit, 333), func(o *parityOutcome) { o.computations = []string{"scale_up/none/Resource"} }),
		},
		{
			name:  "behavior: the default scale-up rules allow the larger of +4 pods and +100%",
			hpa:   withBehavior(newHPA(1, 30, cpuUtilization(50)), behaviorOf(nil, nil)),
			setup: hot,
			want:  with(limitedPass(7, cpuUp, condScaleUpLimit, 333), func(o *parityOutcome) { o.computations = []string{"scale_up/none/Resource"} }),
		},
		{
			name:  "behavior: maxReplicas below the rate limit clamps with TooManyReplicas",
			hpa:   withBehavior(newHPA(1, 5, cpuUtilization(50)), behaviorOf(nil, nil)),
			setup: hot,
			want:  with(limitedPass(5, cpuUp, condTooManyReplicas, 333), func(o *parityOutcome) { o.computations = []string{"scale_up/none/Resource"} }),
		},
		{
			name:  "behavior: selectPolicy Disabled forbids a scale-down",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), behaviorOf(nil, rules(zero, disabled, podsPolicy(1, 60)))),
			setup: cold,
			want:  heldDown(condReadyForNewScale, condScaleDownLimit),
		},
		{
			name:  "behavior: selectPolicy Disabled forbids a scale-up",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), behaviorOf(rules(nil, disabled, podsPolicy(4, 60)), nil)),
			setup: hot,
			want: parityOutcome{
				current: 3, desired: 3,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(333, 333)},
				conditions:      []wantCond{condReadyForNewScale, condValidMetric(cpuUtilizationName), condScaleUpLimit},
				reconciliations: []string{"none/none"},
				computations:    []string{"scale_up/none/Resource"},
				statusWrites:    1,
			},
		},
		{
			name:  "behavior: a Pods policy limits a scale-down with ScaleDownLimit",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), behaviorOf(nil, rules(zero, nil, podsPolicy(1, 60)))),
			setup: cold,
			want: with(limitedPass(2, "All metrics below target", condScaleDownLimit, 10), func(o *parityOutcome) {
				o.computations = []string{"scale_down/none/Resource"}
			}),
		},
		{
			name:  "behavior: an unset scale-down window takes the flag's and holds a scale-down",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), behaviorOf(nil, rules(nil, nil, percentPolicy(100, 15)))),
			setup: cold,
			want:  heldDown(condScaleDownStabilized, condWithinRange),
		},
		{
			name:  "behavior: a scale-up stabilization window applies the lowest recent recommendation",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), behaviorOf(rules(ptr.To[int32](60), nil), nil)),
			setup: hot,
			want: parityOutcome{
				current: 3, desired: 3,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(333, 333)},
				conditions:      []wantCond{condScaleUpStabilized, condValidMetric(cpuUtilizationName), condWithinRange},
				reconciliations: []string{"none/none"},
				computations:    []string{"scale_up/none/Resource"},
				statusWrites:    1,
			},
		},
		{
			name:  "lastScaleTime moves on a rescale only",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(100, 100, 100)),
			run: func(h *harness) error {
				if err := h.reconcile(testHPAName); err != nil {
					return err
				}
				// Six replicas now; the pods at the target hold them.
				h.clock.Step(15 * time.Second)
				h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(50, 50, 50))
				return h.reconcile(testHPAName)
			},
			want: parityOutcome{
				updates: []int32{6},
				current: 6, desired: 6,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(50, 50)},
				conditions:      []wantCond{condReadyForNewScale, condValidMetric(cpuUtilizationName), condWithinRange, condNotScaledToZero},
				events:          []string{rescaleEvent(6, cpuUp)},
				reconciliations: []string{"scale_up/none", "none/none"},
				computations:    []string{"scale_up/none/Resource", "scale_up/none/Resource"},
				statusWrites:    2,
				lastScaleTime:   testStart,
			},
		},
	})
}
