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
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// metricSpec is one entry of an HPA's spec.metrics, in short.
type metricSpec struct {
	// Type is the metric source type: Resource, ContainerResource, Pods,
	// Object or External.
	Type string
	// Target is the target type: Utilization, AverageValue or Value.
	Target string
	// Name is the resource (Resource, ContainerResource) or metric name.
	Name string
	// Value is the target: a percentage for Utilization, else a milli-value.
	Value int64
	// Fallback is an External metric's fallback (fallback.go).
	Fallback *fallbackSpec
}

// policy is one scaling policy.
type policy struct {
	Type   string // Pods or Percent
	Value  int32
	Period int32
}

// rules is one direction of spec.behavior.
type rules struct {
	// Window is the stabilization window in seconds; -1 leaves it unset.
	Window   int32
	Select   string // "" (unset), Max, Min or Disabled
	Policies []policy
	// Tolerance is a quantity ("" for unset), e.g. "0.05".
	Tolerance string
}

// step is what happens before the controllers' next reconciles: the world
// changes, then time advances by Advance sync periods.
type step struct {
	Advance int
	// Manual, when >= 0, is the replica count a person sets on the target.
	Manual int32
	Pods   []pod
	// Values are the readings of the Object and External metrics, by
	// metric index; pods carry the readings of pod metrics.
	Values []int64
	// Errs lists the metric indexes whose fetch fails in this step.
	Errs []int
	// Fault is what kube-hpa's world alone meets in this step (faults.go).
	Fault *fault
	// TwinPods are the pods of the twin's target, and TwinValues the
	// readings of the twin's own Object and External metrics, by index of
	// twin.Own (twin.go).
	TwinPods   []pod
	TwinValues []int64
}

// seqScenario is an HPA and a sequence of steps. It prints (row) as a Go
// literal for the regressions table.
type seqScenario struct {
	// Min is spec.minReplicas; -1 leaves it unset.
	Min, Max int32
	Metrics  []metricSpec
	// Up and Down are spec.behavior; both nil leaves behavior unset.
	Up, Down *rules
	// Start is the target's replica count when the HPA is created.
	Start int32
	Steps []step
	// Twin, when set, is a second HPA in both worlds that shares the
	// External metrics of this one (twin.go).
	Twin *twin

	// windowNudge lengthens the downscale stabilization window, for the
	// allow-list to tell a difference at the window's exact boundary.
	windowNudge time.Duration
}

func (g *gen) metricSpec(i int) metricSpec {
	name := fmt.Sprintf("m%d", i)
	switch pick(g, "Resource", "Resource", "ContainerResource", "Pods", "Object", "External", "External") {
	case "Resource":
		if g.chance(0.7) {
			return metricSpec{Type: "Resource", Target: "Utilization", Name: pick(g, "cpu", "memory"), Value: int64(pick(g, 50, 60, 80, 100, 150, g.intn(1, 200)))}
		}
		return metricSpec{Type: "Resource", Target: "AverageValue", Name: pick(g, "cpu", "memory"), Value: g.targetValue()}
	case "ContainerResource":
		return metricSpec{Type: "ContainerResource", Target: "Utilization", Name: pick(g, "cpu", "memory"), Value: int64(pick(g, 50, 80, g.intn(1, 200)))}
	case "Pods":
		return metricSpec{Type: "Pods", Target: "AverageValue", Name: name, Value: g.targetValue()}
	case "Object":
		return metricSpec{Type: "Object", Target: pick(g, "Value", "AverageValue"), Name: name, Value: g.targetValue()}
	default:
		return metricSpec{Type: "External", Target: pick(g, "Value", "AverageValue"), Name: name, Value: g.targetValue()}
	}
}

func (g *gen) rules(up bool) *rules {
	if g.chance(0.3) {
		return nil
	}
	r := &rules{Window: int32(pick(g, -1, -1, 0, 15, 60, 120, 300, g.intn(0, 600))), Select: pick(g, "", "", "Max", "Min", "Disabled")}
	if g.chance(0.8) {
		for range g.intn(1, 3) {
			p := policy{Type: pick(g, "Pods", "Percent"), Period: int32(pick(g, 15, 30, 60, 120, 600, g.intn(1, 1800)))}
			if p.Type == "Pods" {
				p.Value = int32(pick(g, 1, 2, 4, g.intn(1, 10)))
			} else {
				p.Value = int32(pick(g, 10, 50, 80, 100, 200, 900, g.intn(1, 1000)))
			}
			r.Policies = append(r.Policies, p)
		}
	}
	if g.chance(0.3) {
		r.Tolerance = pick(g, "0", "0.01", "0.05", "0.2", "0.5")
	}
	if !up && r.Select == "" && len(r.Policies) == 0 && r.Window == -1 && r.Tolerance == "" {
		return nil
	}
	return r
}

// healthyPod is a running, ready pod started long ago with its requests and
// a reading: most pods of a scenario are like this, so that the metrics
// decide, not the pods' troubles.
func (g *gen) healthyPod(i int) pod {
	return pod{
		Name: fmt.Sprintf("p%d", i), Phase: "Running", Ready: "True", ReadyAgo: 3000, StartAgo: 3600,
		CPU: 500, Mem: 1000, HasMetric: true, Metric: int64(g.intn(0, 1500)), MetricAgo: 15, Window: 30,
	}
}

func (g *gen) seqScenario() seqScenario {
	s := seqScenario{Max: int32(pick(g, 1, 3, 5, 10, 20, g.intn(1, 30)))}
	s.Min = int32(pick(g, -1, -1, 1, 1, 2, 0, g.intn(1, 5)))
	if s.Min > s.Max {
		s.Min = s.Max
	}
	for i := range pick(g, 1, 1, 1, 2, 2, 3, 4) {
		s.Metrics = append(s.Metrics, g.metricSpec(i))
	}
	if s.Min == 0 && !s.hasObjectOrExternal() {
		s.Min = 1
	}
	if g.chance(0.7) {
		s.Up, s.Down = g.rules(true), g.rules(false)
	}
	s.Start = int32(pick(g, 0, 1, 1, 2, 3, 4, 5, 8, g.intn(0, 40)))
	for range g.intn(2, 8) {
		s.Steps = append(s.Steps, g.step(len(s.Metrics)))
	}
	return s
}

func (s seqScenario) hasObjectOrExternal() bool {
	for _, m := range s.Metrics {
		if m.Type == "Object" || m.Type == "External" {
			return true
		}
	}
	return false
}

func (g *gen) step(metrics int) step {
	st := step{Advance: pick(g, 1, 1, 1, 2, 2, 4, 8, 20, g.intn(1, 30)), Manual: -1}
	if g.chance(0.08) {
		st.Manual = int32(pick(g, 0, 1, 3, g.intn(0, 40)))
	}
	for i := range pick(g, 0, 1, 2, 3, 3, 4, 5, 6) {
		if g.chance(0.75) {
			st.Pods = append(st.Pods, g.healthyPod(i))
		} else {
			st.Pods = append(st.Pods, g.pod(i))
		}
	}
	for i := range metrics {
		if g.chance(0.85) {
			st.Values = append(st.Values, int64(g.intn(0, 5000)))
		} else {
			st.Values = append(st.Values, g.metricValue())
		}
		if g.chance(0.06) {
			st.Errs = append(st.Errs, i)
		}
	}
	return st
}

func (s seqScenario) row() string { return literal(s) }

// hpa builds the HPA of the scenario as the API would hold it.
func (s seqScenario) hpa() *autoscalingv2.HorizontalPodAutoscaler { return s.hpaNamed("web") }

// hpaNamed builds the HPA of the scenario, named name, on the Deployment
// of that name.
func (s seqScenario) hpaNamed(name string) *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1", Generation: 1},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MaxReplicas:    s.Max,
		},
	}
	if s.Min >= 0 {
		h.Spec.MinReplicas = ptr.To(s.Min)
	} else {
		h.Spec.MinReplicas = ptr.To[int32](1) // the API's default
	}
	for _, m := range s.Metrics {
		h.Spec.Metrics = append(h.Spec.Metrics, m.spec())
	}
	if s.Up != nil || s.Down != nil {
		h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: s.Up.spec(true), ScaleDown: s.Down.spec(false)}
	}
	return h
}

func (m metricSpec) target() autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: autoscalingv2.MetricTargetType(m.Target)}
	q := resource.NewMilliQuantity(m.Value, resource.DecimalSI)
	switch m.Target {
	case "Utilization":
		t.AverageUtilization = ptr.To(int32(m.Value))
	case "AverageValue":
		t.AverageValue = q
	default:
		t.Value = q
	}
	return t
}

func (m metricSpec) spec() autoscalingv2.MetricSpec {
	id := autoscalingv2.MetricIdentifier{Name: m.Name}
	switch m.Type {
	case "Resource":
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceName(m.Name), Target: m.target()}}
	case "ContainerResource":
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: corev1.ResourceName(m.Name), Container: "app", Target: m.target()}}
	case "Pods":
		return autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: id, Target: m.target()}}
	case "Object":
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{DescribedObject: *objectRef, Metric: id, Target: m.target()}}
	default:
		id.Selector = externalSelector
		src := &autoscalingv2.ExternalMetricSource{Metric: id, Target: m.target()}
		setFallback(src, m.Fallback)
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: src}
	}
}

// spec builds one direction of behavior with the API's defaults filled in,
// as the API server stores it.
func (r *rules) spec(up bool) *autoscalingv2.HPAScalingRules {
	out := &autoscalingv2.HPAScalingRules{}
	if r != nil {
		if r.Window >= 0 {
			out.StabilizationWindowSeconds = ptr.To(r.Window)
		}
		if r.Select != "" {
			out.SelectPolicy = ptr.To(autoscalingv2.ScalingPolicySelect(r.Select))
		}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.HPAScalingPolicyType(p.Type), Value: p.Value, PeriodSeconds: p.Period})
		}
		if r.Tolerance != "" {
			out.Tolerance = ptr.To(resource.MustParse(r.Tolerance))
		}
	}
	// The defaults of autoscaling/v2 (SetDefaults_HorizontalPodAutoscalerBehavior).
	if up {
		if out.StabilizationWindowSeconds == nil {
			out.StabilizationWindowSeconds = ptr.To[int32](0)
		}
		if len(out.Policies) == 0 {
			out.Policies = []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15}, {Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}
		}
	} else if len(out.Policies) == 0 {
		out.Policies = []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}
	}
	if out.SelectPolicy == nil {
		out.SelectPolicy = ptr.To(autoscalingv2.MaxChangePolicySelect)
	}
	return out
}
