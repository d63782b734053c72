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
	"context"
	"errors"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/calculator"
	"github.com/kube-hpa/kube-hpa/pkg/milli"
)

// evaluator turns one MetricSpec into one proposal. It holds what every
// metric of one pass is computed from, and has no effect besides asking the
// calculator: a failure is returned in the proposal (reason, cause, error)
// for the caller to report, so that evaluation order and reporting do not
// depend on each other.
type evaluator struct {
	ctx        context.Context
	calc       *calculator.Calculator
	namespace  string
	tolerances calculator.Tolerances
	// specReplicas and statusReplicas are the target's scale: the ratio
	// targets use the desired count, per-pod averages the observed one.
	specReplicas, statusReplicas int32
	// selector selects the target's pods.
	selector labels.Selector
}

// evaluate computes the proposal of spec, fallback aside.
func (e *evaluator) evaluate(spec *v2.MetricSpec) proposal {
	switch spec.Type {
	case autoscalingv2.ObjectMetricSourceType:
		return e.object(spec.Object)
	case autoscalingv2.PodsMetricSourceType:
		return e.pods(spec.Pods)
	case autoscalingv2.ResourceMetricSourceType:
		return e.resource(spec.Resource.Name, "", spec.Resource.Target, spec.Type)
	case autoscalingv2.ContainerResourceMetricSourceType:
		cr := spec.ContainerResource
		return e.resource(cr.Name, cr.Container, cr.Target, spec.Type)
	case autoscalingv2.ExternalMetricSourceType:
		return e.external(spec.External)
	}
	// Validation refuses unknown types; an object stored before that
	// check still must not crash the controller.
	return failed("InvalidMetricSourceType", fmt.Errorf("unknown metric source type %q%w", spec.Type, errSpec), nil)
}

// tolerances returns the usage-ratio tolerances: the global flag, overridden
// per direction by behavior.*.tolerance when HPAConfigurableTolerance is on.
func tolerances(global float64, b *v2.HorizontalPodAutoscalerBehavior, configurable bool) calculator.Tolerances {
	t := calculator.Tolerances{ScaleDown: global, ScaleUp: global}
	if b == nil || !configurable {
		return t
	}
	if b.ScaleDown != nil && b.ScaleDown.Tolerance != nil {
		t.ScaleDown = b.ScaleDown.Tolerance.AsApproximateFloat64()
	}
	if b.ScaleUp != nil && b.ScaleUp.Tolerance != nil {
		t.ScaleUp = b.ScaleUp.Tolerance.AsApproximateFloat64()
	}
	return t
}

func milliQuantity(v int64) *resource.Quantity {
	return resource.NewMilliQuantity(v, resource.DecimalSI)
}

// resourceQuantity formats a resource usage as metrics-server does: memory
// in binary units, everything else in decimal ones.
func resourceQuantity(name corev1.ResourceName, milli int64) *resource.Quantity {
	format := resource.DecimalSI
	if name == corev1.ResourceMemory {
		format = resource.BinarySI
	}
	return resource.NewMilliQuantity(milli, format)
}

func (e *evaluator) object(src *v2.ObjectMetricSource) proposal {
	const reason = "FailedGetObjectMetric"
	wrap := wrapf("failed to get object metric value")
	metricSelector, err := metav1.LabelSelectorAsSelector(src.Metric.Selector)
	if err != nil {
		return failed(reason, err, wrap)
	}
	status := v2.MetricStatus{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &v2.ObjectMetricStatus{
			DescribedObject: src.DescribedObject,
			Metric:          *src.Metric.DeepCopy(),
		},
	}
	group := status.Object.Metric.SourceGroup()
	switch {
	case src.Target.Type == autoscalingv2.ValueMetricType && src.Target.Value != nil:
		r, err := e.calc.GetObjectMetricReplicas(e.ctx, e.specReplicas, milli.Value(*src.Target.Value),
			src.Metric.Name, e.tolerances, e.namespace, &src.DescribedObject, e.selector, metricSelector, group)
		if err != nil {
			return failed(reason, err, wrap)
		}
		status.Object.Current.Value = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status,
			name: fmt.Sprintf("%s metric %s", src.DescribedObject.Kind, src.Metric.Name)}
	case src.Target.Type == autoscalingv2.AverageValueMetricType && src.Target.AverageValue != nil:
		r, err := e.calc.GetObjectPerPodMetricReplicas(e.ctx, e.statusReplicas, milli.Value(*src.Target.AverageValue),
			src.Metric.Name, e.tolerances, e.namespace, &src.DescribedObject, metricSelector, group)
		if err != nil {
			return failed(reason, err, func(cause error) error {
				return wrap(fmt.Errorf("failed to get %s object metric: %w", src.Metric.Name, cause))
			})
		}
		status.Object.Current.AverageValue = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status,
			name: fmt.Sprintf("external metric %s(%+v)", src.Metric.Name, src.Metric.Selector)}
	}
	return failed(reason, errors.New("invalid object metric source: neither a value target nor an average value target was set"), wrap)
}

func (e *evaluator) pods(src *v2.PodsMetricSource) proposal {
	const reason = "FailedGetPodsMetric"
	wrap := wrapf("failed to get pods metric value")
	metricSelector, err := metav1.LabelSelectorAsSelector(src.Metric.Selector)
	if err != nil {
		return failed(reason, err, wrap)
	}
	if src.Target.AverageValue == nil {
		return failed(reason, errors.New("invalid pods metric source: no average value target was set"), wrap)
	}
	id := *src.Metric.DeepCopy()
	r, err := e.calc.GetMetricReplicas(e.ctx, e.specReplicas, milli.Value(*src.Target.AverageValue),
		src.Metric.Name, e.tolerances, e.namespace, e.selector, metricSelector, id.SourceGroup())
	if err != nil {
		return failed(reason, err, wrap)
	}
	return proposal{
		replicas:  r.Replicas,
		timestamp: r.Timestamp,
		name:      fmt.Sprintf("pods metric %s", src.Metric.Name),
		status: v2.MetricStatus{
			Type: autoscalingv2.PodsMetricSourceType,
			Pods: &v2.PodsMetricStatus{
				Metric:  id,
				Current: autoscalingv2.MetricValueStatus{AverageValue: milliQuantity(r.RawUsage)},
			},
		},
	}
}

// resource serves Resource and ContainerResource metrics, which
// differ only in the container filter and the status member they fill.
func (e *evaluator) resource(name corev1.ResourceName, container string, target autoscalingv2.MetricTarget,
	sourceType autoscalingv2.MetricSourceType) proposal {
	reason, wrap := "FailedGetResourceMetric", wrapf("failed to get %s resource metric value", name)
	if sourceType == autoscalingv2.ContainerResourceMetricSourceType {
		reason, wrap = "FailedGetContainerResourceMetric", wrapf("failed to get %s container metric value", container)
	}
	current, metricName, pr, err := e.resourceValue(name, container, target, sourceType)
	if err != nil {
		return failed(reason, err, wrap)
	}
	pr.name = metricName
	pr.status = v2.MetricStatus{Type: sourceType}
	if sourceType == autoscalingv2.ContainerResourceMetricSourceType {
		pr.status.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: name, Container: container, Current: current}
	} else {
		pr.status.Resource = &autoscalingv2.ResourceMetricStatus{Name: name, Current: current}
	}
	return pr
}

func (e *evaluator) resourceValue(name corev1.ResourceName, container string, target autoscalingv2.MetricTarget,
	sourceType autoscalingv2.MetricSourceType) (autoscalingv2.MetricValueStatus, string, proposal, error) {
	if target.AverageValue != nil {
		r, err := e.calc.GetRawResourceReplicas(e.ctx, e.specReplicas, milli.Value(*target.AverageValue), name, e.tolerances, e.namespace, e.selector, container)
		if err != nil {
			return autoscalingv2.MetricValueStatus{}, "", proposal{}, fmt.Errorf("failed to get %s usage: %w", name, err)
		}
		current := autoscalingv2.MetricValueStatus{AverageValue: resourceQuantity(name, r.RawUsage)}
		return current, fmt.Sprintf("%s resource", name), proposal{replicas: r.Replicas, timestamp: r.Timestamp}, nil
	}
	if target.AverageUtilization == nil {
		return autoscalingv2.MetricValueStatus{}, "", proposal{}, errors.New(
			"invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
	}
	r, err := e.calc.GetResourceReplicas(e.ctx, e.specReplicas, *target.AverageUtilization, name, e.tolerances, e.namespace, e.selector, container)
	if err != nil {
		return autoscalingv2.MetricValueStatus{}, "", proposal{}, fmt.Errorf("failed to get %s utilization: %w", name, err)
	}
	utilization := r.Utilization
	current := autoscalingv2.MetricValueStatus{AverageUtilization: &utilization, AverageValue: resourceQuantity(name, r.RawUsage)}
	metricName := fmt.Sprintf("%s resource utilization (percentage of request)", name)
	if sourceType == autoscalingv2.ContainerResourceMetricSourceType {
		metricName = fmt.Sprintf("%s container resource utilization (percentage of request)", name)
	}
	return current, metricName, proposal{replicas: r.Replicas, timestamp: r.Timestamp}, nil
}

// external computes an External metric's proposal. The fallback of
// KEP-5679 applies to its result (fallback.go).
func (e *evaluator) external(src *v2.ExternalMetricSource) proposal {
	const reason = "FailedGetExternalMetric"
	status := v2.MetricStatus{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricStatus{
			Metric: *src.Metric.DeepCopy(),
		},
	}
	group := status.External.Metric.SourceGroup()
	name := fmt.Sprintf("external metric %s(%+v)", src.Metric.Name, src.Metric.Selector)
	wrap := wrapf("failed to get %s external metric value", src.Metric.Name)
	switch {
	case src.Target.AverageValue != nil:
		r, err := e.calc.GetExternalPerPodMetricReplicas(e.ctx, e.statusReplicas, milli.Value(*src.Target.AverageValue),
			src.Metric.Name, e.tolerances, e.namespace, src.Metric.Selector, group)
		if err != nil {
			return failed(reason, err, func(cause error) error {
				return wrap(fmt.Errorf("failed to get %s external metric: %w", src.Metric.Name, cause))
			})
		}
		status.External.Current.AverageValue = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status, name: name}
	case src.Target.Value != nil:
		r, err := e.calc.GetExternalMetricReplicas(e.ctx, e.specReplicas, milli.Value(*src.Target.Value),
			src.Metric.Name, e.tolerances, e.namespace, src.Metric.Selector, e.selector, group)
		if err != nil {
			return failed(reason, err, func(cause error) error {
				return wrap(fmt.Errorf("failed to get external metric %s: %w", src.Metric.Name, cause))
			})
		}
		status.External.Current.Value = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status, name: name}
	}
	return failed(reason, errors.New("invalid external metric source: neither a value target nor an average value target was set"), wrap)
}
