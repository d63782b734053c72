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

package bench

import (
	"fmt"
	"math"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The ramp: a handful of Deployments, each with a native autoscaling/v2
// HPA on an External metric of its own, start at their minReplicas; at a
// known time every metric jumps to ask for more replicas, and stays there
// until each Deployment has them (or Options.RampHold). A watch of the
// Deployments records when each new replica count appears. The HPAs differ
// in their scale-up behavior, so the table shows whether a controller
// climbs at the pace upstream's rules allow: one step per sync period.
// The ramp runs on a cluster of its own (ramp_run.go).

// ScenarioRamp names the ramp's run directory and table.
const ScenarioRamp = "ramp"

// metricRamp is the ramp's external metric, one series per Deployment
// (label ramp=<name>), with an AverageValue target of rampTarget: a value
// of n*rampTarget asks for n replicas whatever the current count.
const (
	metricRamp = "bench_ramp"
	rampTarget = 100
	// rampMaxReplicas is every ramp HPA's maxReplicas.
	rampMaxReplicas = 10
)

// rampBehavior is the scale-up behavior of one ramp HPA.
type rampBehavior int

const (
	// rampNoBehavior has no behavior field: upstream then limits a scale
	// up to max(2x, 4) replicas per pass (its legacy rule), not to the
	// behavior defaults.
	rampNoBehavior rampBehavior = iota
	// rampDefaultBehavior has an empty behavior, which the API server
	// defaults to 4 Pods or 100 Percent per 15 s, whichever is more.
	rampDefaultBehavior
	// rampPods and rampPercent have one scale-up policy of value per 15 s.
	rampPods
	rampPercent
)

// rampPolicyPeriod is the periodSeconds of the ramp's own policies, as of
// the defaulted ones.
const rampPolicyPeriod = 15

// rampCase is one Deployment of the ramp and its HPA.
type rampCase struct {
	name     string
	behavior rampBehavior
	// value is the policy's value for rampPods and rampPercent.
	value int32
	// min is the HPA's minReplicas, where the Deployment starts; target
	// what the raised metric asks for.
	min, target int32
}

// rampCases are the ramp's Deployments: (a) the default scale-up behavior,
// without a behavior field and with an empty one, (b) 1 Pod per 15 s,
// (c) 100 Percent per 15 s.
var rampCases = []rampCase{
	{name: "ramp-none-1", behavior: rampNoBehavior, min: 1, target: 7},
	{name: "ramp-none-2", behavior: rampNoBehavior, min: 2, target: 7},
	{name: "ramp-default-2", behavior: rampDefaultBehavior, min: 2, target: 7},
	{name: "ramp-pods-2", behavior: rampPods, value: 1, min: 2, target: 8},
	{name: "ramp-percent-1", behavior: rampPercent, value: 100, min: 1, target: 10},
	{name: "ramp-percent-2", behavior: rampPercent, value: 100, min: 2, target: 10},
}

// describe says what the HPA's scale-up behavior is, for the table.
func (c rampCase) describe() string {
	switch c.behavior {
	case rampNoBehavior:
		return "no behavior field (upstream: max(2x, 4) per pass)"
	case rampDefaultBehavior:
		return "behavior {} (4 Pods or 100 Percent per 15s)"
	case rampPods:
		return fmt.Sprintf("%d Pods per %ds", c.value, rampPolicyPeriod)
	default:
		return fmt.Sprintf("%d Percent per %ds", c.value, rampPolicyPeriod)
	}
}

// scaleUpLimit is the most replicas upstream allows in one pass from cur,
// when no scale-up happened within the policies' period (one sync period
// after the last one, upstream's next pass).
func (c rampCase) scaleUpLimit(cur int32) int32 {
	percent := func(p int32) int32 { return int32(math.Ceil(float64(cur) * (1 + float64(p)/100))) }
	switch c.behavior {
	case rampNoBehavior:
		return max(2*cur, 4)
	case rampDefaultBehavior:
		return max(cur+4, percent(100))
	case rampPods:
		return cur + c.value
	default:
		return percent(c.value)
	}
}

// upstreamSteps are the replica counts upstream's rules take the
// Deployment through, one per pass, from min to target.
func (c rampCase) upstreamSteps() []int32 {
	var steps []int32
	for cur := c.min; cur < min(c.target, rampMaxReplicas); {
		next := min(c.scaleUpLimit(cur), c.target, rampMaxReplicas)
		if next <= cur {
			break
		}
		steps = append(steps, next)
		cur = next
	}
	return steps
}

// hpa is the native HPA of the case, on its Deployment of the same name.
func (c rampCase) hpa() *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: Namespace},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: c.name},
			MinReplicas:    ptr.To(c.min),
			MaxReplicas:    rampMaxReplicas,
			Metrics: []autoscalingv2.MetricSpec{{
				Type: autoscalingv2.ExternalMetricSourceType,
				External: &autoscalingv2.ExternalMetricSource{
					Metric: autoscalingv2.MetricIdentifier{
						Name:     metricRamp,
						Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"ramp": c.name}},
					},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: resource.NewQuantity(rampTarget, resource.DecimalSI)},
				},
			}},
		},
	}
	policy := func(t autoscalingv2.HPAScalingPolicyType) *autoscalingv2.HorizontalPodAutoscalerBehavior {
		return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: t, Value: c.value, PeriodSeconds: rampPolicyPeriod}},
		}}
	}
	switch c.behavior {
	case rampDefaultBehavior:
		h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{}
	case rampPods:
		h.Spec.Behavior = policy(autoscalingv2.PodsScalingPolicy)
	case rampPercent:
		h.Spec.Behavior = policy(autoscalingv2.PercentScalingPolicy)
	}
	return h
}

// rampMetricsData is the adapter's ConfigMap data of the ramp: each case's
// series at rampTarget (which its minReplicas clamps), or raised to ask
// for its target.
func rampMetricsData(raised bool) map[string]string {
	var b strings.Builder
	b.WriteString("series:\n")
	for _, c := range rampCases {
		value := int32(rampTarget)
		if raised {
			value = c.target * rampTarget
		}
		fmt.Fprintf(&b, "- {value: \"%d\", labels: {ramp: %s}}\n", value, c.name)
	}
	return map[string]string{"external." + metricRamp: b.String()}
}
