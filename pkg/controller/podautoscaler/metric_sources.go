package podautoscaler

import (
	"errors"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/calculator"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// proposeObserved computes one metric's proposal and reports the
// computation to Prometheus.
func (p *pass) proposeObserved(spec *v2.MetricSpec, selector labels.Selector) proposal {
	start := p.c.opts.Clock.Now()
	pr := p.propose(spec, selector)

	action, errorLabel := monitor.ActionLabelNone, monitor.ErrorLabelNone
	switch {
	case errors.Is(pr.err, errSpec):
		errorLabel = monitor.ErrorLabelSpec
	case pr.err != nil:
		errorLabel = monitor.ErrorLabelInternal
	case pr.replicas > p.hpa.Status.CurrentReplicas:
		action = monitor.ActionLabelScaleUp
	case pr.replicas < p.hpa.Status.CurrentReplicas:
		action = monitor.ActionLabelScaleDown
	}
	p.c.opts.Monitor.ObserveMetricComputationResult(action, errorLabel, p.c.opts.Clock.Since(start), spec.Type)
	return pr
}

func (p *pass) propose(spec *v2.MetricSpec, selector labels.Selector) proposal {
	switch spec.Type {
	case autoscalingv2.ObjectMetricSourceType:
		return p.proposeObject(spec.Object, selector)
	case autoscalingv2.PodsMetricSourceType:
		return p.proposePods(spec.Pods, selector)
	case autoscalingv2.ResourceMetricSourceType:
		return p.proposeResource(spec.Resource.Name, "", spec.Resource.Target, selector, spec.Type)
	case autoscalingv2.ContainerResourceMetricSourceType:
		cr := spec.ContainerResource
		return p.proposeResource(cr.Name, cr.Container, cr.Target, selector, spec.Type)
	case autoscalingv2.ExternalMetricSourceType:
		return p.proposeExternalWithFallback(spec.External, selector)
	}
	// Validation refuses unknown types; an object stored before that
	// check still must not crash the controller.
	return p.failedProposal("InvalidMetricSourceType", fmt.Errorf("unknown metric source type %q%w", spec.Type, errSpec), nil)
}

// tolerances returns the usage-ratio tolerances: the global flag, overridden
// per direction by behavior.*.tolerance when HPAConfigurableTolerance is on.
func (p *pass) tolerances() calculator.Tolerances {
	t := calculator.Tolerances{ScaleDown: p.c.opts.Tolerance, ScaleUp: p.c.opts.Tolerance}
	b := p.hpa.Spec.Behavior
	if b == nil || !p.c.opts.Gates.Enabled(features.HPAConfigurableTolerance) {
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

func (p *pass) proposeObject(src *autoscalingv2.ObjectMetricSource, selector labels.Selector) proposal {
	const reason = "FailedGetObjectMetric"
	wrap := wrapf("failed to get object metric value")
	metricSelector, err := metav1.LabelSelectorAsSelector(src.Metric.Selector)
	if err != nil {
		return p.failedProposal(reason, err, wrap)
	}
	status := v2.MetricStatus{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &autoscalingv2.ObjectMetricStatus{
			DescribedObject: src.DescribedObject,
			Metric:          autoscalingv2.MetricIdentifier{Name: src.Metric.Name, Selector: src.Metric.Selector},
		},
	}
	ns, t := p.hpa.Namespace, p.tolerances()
	switch {
	case src.Target.Type == autoscalingv2.ValueMetricType && src.Target.Value != nil:
		r, err := p.c.calculator.GetObjectMetricReplicas(p.ctx, p.scale.Spec.Replicas, metrics.MilliValue(*src.Target.Value),
			src.Metric.Name, t, ns, &src.DescribedObject, selector, metricSelector)
		if err != nil {
			return p.failedProposal(reason, err, wrap)
		}
		status.Object.Current.Value = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status,
			name: fmt.Sprintf("%s metric %s", src.DescribedObject.Kind, src.Metric.Name)}
	case src.Target.Type == autoscalingv2.AverageValueMetricType && src.Target.AverageValue != nil:
		r, err := p.c.calculator.GetObjectPerPodMetricReplicas(p.ctx, p.scale.Status.Replicas, metrics.MilliValue(*src.Target.AverageValue),
			src.Metric.Name, t, ns, &src.DescribedObject, metricSelector)
		if err != nil {
			return p.failedProposal(reason, err, func(cause error) error {
				return wrap(fmt.Errorf("failed to get %s object metric: %w", src.Metric.Name, cause))
			})
		}
		status.Object.Current.AverageValue = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status,
			name: fmt.Sprintf("external metric %s(%+v)", src.Metric.Name, src.Metric.Selector)}
	}
	return p.failedProposal(reason, errors.New("invalid object metric source: neither a value target nor an average value target was set"), wrap)
}

func (p *pass) proposePods(src *autoscalingv2.PodsMetricSource, selector labels.Selector) proposal {
	const reason = "FailedGetPodsMetric"
	wrap := wrapf("failed to get pods metric value")
	metricSelector, err := metav1.LabelSelectorAsSelector(src.Metric.Selector)
	if err != nil {
		return p.failedProposal(reason, err, wrap)
	}
	if src.Target.AverageValue == nil {
		return p.failedProposal(reason, errors.New("invalid pods metric source: no average value target was set"), wrap)
	}
	r, err := p.c.calculator.GetMetricReplicas(p.ctx, p.scale.Spec.Replicas, metrics.MilliValue(*src.Target.AverageValue),
		src.Metric.Name, p.tolerances(), p.hpa.Namespace, selector, metricSelector)
	if err != nil {
		return p.failedProposal(reason, err, wrap)
	}
	return proposal{
		replicas:  r.Replicas,
		timestamp: r.Timestamp,
		name:      fmt.Sprintf("pods metric %s", src.Metric.Name),
		status: v2.MetricStatus{
			Type: autoscalingv2.PodsMetricSourceType,
			Pods: &autoscalingv2.PodsMetricStatus{
				Metric:  autoscalingv2.MetricIdentifier{Name: src.Metric.Name, Selector: src.Metric.Selector},
				Current: autoscalingv2.MetricValueStatus{AverageValue: milliQuantity(r.RawUsage)},
			},
		},
	}
}

// proposeResource serves Resource and ContainerResource metrics, which
// differ only in the container filter and the status member they fill.
func (p *pass) proposeResource(name corev1.ResourceName, container string, target autoscalingv2.MetricTarget,
	selector labels.Selector, sourceType autoscalingv2.MetricSourceType) proposal {
	reason, wrap := "FailedGetResourceMetric", wrapf("failed to get %s resource metric value", name)
	if sourceType == autoscalingv2.ContainerResourceMetricSourceType {
		reason, wrap = "FailedGetContainerResourceMetric", wrapf("failed to get %s container metric value", container)
	}
	current, metricName, pr, err := p.resourceValue(name, container, target, selector, sourceType)
	if err != nil {
		return p.failedProposal(reason, err, wrap)
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

func (p *pass) resourceValue(name corev1.ResourceName, container string, target autoscalingv2.MetricTarget,
	selector labels.Selector, sourceType autoscalingv2.MetricSourceType) (autoscalingv2.MetricValueStatus, string, proposal, error) {
	ns, t, replicas := p.hpa.Namespace, p.tolerances(), p.scale.Spec.Replicas
	if target.AverageValue != nil {
		r, err := p.c.calculator.GetRawResourceReplicas(p.ctx, replicas, metrics.MilliValue(*target.AverageValue), name, t, ns, selector, container)
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
	r, err := p.c.calculator.GetResourceReplicas(p.ctx, replicas, *target.AverageUtilization, name, t, ns, selector, container)
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

// proposeExternal computes an External metric's proposal. The fallback of
// KEP-5679 wraps it (fallback.go).
func (p *pass) proposeExternal(src *v2.ExternalMetricSource, selector labels.Selector) proposal {
	const reason = "FailedGetExternalMetric"
	ns, t := p.hpa.Namespace, p.tolerances()
	status := v2.MetricStatus{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricStatus{
			Metric: autoscalingv2.MetricIdentifier{Name: src.Metric.Name, Selector: src.Metric.Selector},
		},
	}
	name := fmt.Sprintf("external metric %s(%+v)", src.Metric.Name, src.Metric.Selector)
	wrap := wrapf("failed to get %s external metric value", src.Metric.Name)
	switch {
	case src.Target.AverageValue != nil:
		r, err := p.c.calculator.GetExternalPerPodMetricReplicas(p.ctx, p.scale.Status.Replicas, metrics.MilliValue(*src.Target.AverageValue),
			src.Metric.Name, t, ns, src.Metric.Selector)
		if err != nil {
			return p.failedProposal(reason, err, func(cause error) error {
				return wrap(fmt.Errorf("failed to get %s external metric: %w", src.Metric.Name, cause))
			})
		}
		status.External.Current.AverageValue = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status, name: name}
	case src.Target.Value != nil:
		r, err := p.c.calculator.GetExternalMetricReplicas(p.ctx, p.scale.Spec.Replicas, metrics.MilliValue(*src.Target.Value),
			src.Metric.Name, t, ns, src.Metric.Selector, selector)
		if err != nil {
			return p.failedProposal(reason, err, func(cause error) error {
				return wrap(fmt.Errorf("failed to get external metric %s: %w", src.Metric.Name, cause))
			})
		}
		status.External.Current.Value = milliQuantity(r.RawUsage)
		return proposal{replicas: r.Replicas, timestamp: r.Timestamp, status: status, name: name}
	}
	return p.failedProposal(reason, errors.New("invalid external metric source: neither a value target nor an average value target was set"), wrap)
}
