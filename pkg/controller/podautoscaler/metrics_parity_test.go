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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// Causes as the calculator reports them for the failing fakes below.
const (
	cpuCause            = "failed to get cpu utilization: unable to get metrics for resource cpu: adapter unavailable"
	podsCause           = "unable to get metric qps: adapter unavailable"
	objectCause         = "unable to get metric requests on Ingress default/front: adapter unavailable"
	externalCause       = "unable to get external metric default/queue/nil: adapter unavailable"
	externalAuxCause    = "unable to get external metric default/backlog/nil: adapter unavailable"
	podsMetricName      = "pods metric qps"
	externalQueueName   = "external metric queue(nil)"
	objectValueName     = "Ingress metric requests"
	objectAverageName   = "external metric requests(nil)"
	containerCPUName    = "cpu container resource utilization (percentage of request)"
	cpuAverageValueName = "cpu resource"
)

// threeReplicasSetup is three replicas of the test Deployment with three ready
// pods requesting 100m CPU each.
var threeReplicasSetup = []func(*harness){atScale(3, 3), readyPods(3)}

func threeReplicas(steps ...func(*harness)) []func(*harness) {
	return append(append([]func(*harness){}, threeReplicasSetup...), steps...)
}

// scaledUpFromThree is the parityOutcome of a pass that scales 3 replicas up to n on
// metric, with the metric statuses given.
func scaledUpFromThree(n int32, metric string, computations []string, statuses ...v2.MetricStatus) parityOutcome {
	return parityOutcome{
		updates: []int32{n},
		current: 3, desired: n,
		metrics: statuses,
		conditions: []wantCond{
			condRescaled(n), condValidMetric(metric), condWithinRange, condNotScaledToZero,
		},
		events:          []string{rescaleEvent(n, metric+" above target")},
		reconciliations: []string{"scale_up/none"},
		computations:    computations,
		statusWrites:    1,
		lastScaleTime:   testStart,
	}
}

// onlyMetricFailed is the parityOutcome of a pass whose only metric failed with reason
// and cause, err being the pass's error chain for it.
func onlyMetricFailed(metricType autoscalingv2.MetricSourceType, reason, cause, err string) parityOutcome {
	return parityOutcome{
		err:     metricsFailureMsg(1, 1, err),
		current: 3, desired: 3,
		metrics: []v2.MetricStatus{{}},
		conditions: []wantCond{
			condGotScale, condUnableToCompute(reason, cause),
		},
		events: []string{
			"Warning " + reason + " " + cause,
			"Warning FailedComputeMetricsReplicas " + invalidMetricsMsg(1, 1, err),
		},
		reconciliations: []string{"none/internal"},
		computations:    []string{"none/internal/" + string(metricType)},
		statusWrites:    1,
	}
}

func TestParityMetricTypes(t *testing.T) {
	memoryStatus := v2.MetricStatus{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricStatus{
			Name:    corev1.ResourceMemory,
			Current: autoscalingv2.MetricValueStatus{AverageValue: ptr.To(resource.MustParse("200Mi"))},
		},
	}
	const mi = int64(1024 * 1024 * 1000) // one MiB as a milli-value

	runParity(t, []parityScenario{
		{
			name:  "resource utilization above target scales up and reports utilization and average usage",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100)),
			want: scaledUpFromThree(6, cpuUtilizationName, []string{"scale_up/none/Resource"},
				cpuUtilizationStatus(100, 100)),
		},
		{
			name:  "resource utilization below target scales down with all metrics below target",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			opts:  noDownscaleStabilizationWindow,
			setup: threeReplicas(storedReplicas(3), cpuUsage(20, 20, 20)),
			want: parityOutcome{
				updates: []int32{2},
				current: 3, desired: 2,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(20, 20)},
				conditions:      []wantCond{condRescaled(2), condValidMetric(cpuUtilizationName), condWithinRange, condNotScaledToZero},
				events:          []string{rescaleEvent(2, "All metrics below target")},
				reconciliations: []string{"scale_down/none"},
				computations:    []string{"scale_down/none/Resource"},
				statusWrites:    1,
				lastScaleTime:   testStart,
			},
		},
		{
			name:  "resource average value scales on raw usage and reports it without utilization",
			hpa:   newHPA(1, 10, cpuAverageValue(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100)),
			want: scaledUpFromThree(6, cpuAverageValueName, []string{"scale_up/none/Resource"}, v2.MetricStatus{
				Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricStatus{
					Name:    corev1.ResourceCPU,
					Current: autoscalingv2.MetricValueStatus{AverageValue: milliQ(100)},
				},
			}),
		},
		{
			name:  "memory average value is reported in binary units as metrics-server does",
			hpa:   newHPA(1, 10, memoryAverageValue("100Mi")),
			setup: threeReplicas(memoryUsage(200*mi, 200*mi, 200*mi)),
			want:  scaledUpFromThree(6, "memory resource", []string{"scale_up/none/Resource"}, memoryStatus),
			check: func(t *testing.T, h *harness) {
				got := h.hpa(testHPAName).Status.CurrentMetrics[0].Resource.Current.AverageValue.String()
				if got != "200Mi" {
					t.Errorf("memory average value = %s, want 200Mi", got)
				}
			},
		},
		{
			name:  "container resource utilization asks for the named container and reports it",
			hpa:   newHPA(1, 10, containerCPUUtilization("app", 50)),
			setup: threeReplicas(cpuUsage(100, 100, 100)),
			want: scaledUpFromThree(6, containerCPUName, []string{"scale_up/none/ContainerResource"}, v2.MetricStatus{
				Type: autoscalingv2.ContainerResourceMetricSourceType,
				ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{
					Name: corev1.ResourceCPU, Container: "app",
					Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To[int32](100), AverageValue: milliQ(100)},
				},
			}),
			check: func(t *testing.T, h *harness) {
				reqs := h.metrics.Requests()
				if len(reqs) != 1 || reqs[0].Kind != metricstest.Resource || reqs[0].Container != "app" {
					t.Errorf("metric requests = %+v, want one resource request for container app", reqs)
				}
			},
		},
		{
			name:  "pods metric average value scales on the per-pod average",
			hpa:   newHPA(1, 10, podsAverage("qps", "10")),
			setup: threeReplicas(podsMetricValues("qps", 20000, 20000, 20000)),
			want:  scaledUpFromThree(6, podsMetricName, []string{"scale_up/none/Pods"}, podsMetricStatus("qps", 20000)),
		},
		{
			name:  "object metric value is shared among the ready pods",
			hpa:   newHPA(1, 10, ingressValue("requests", "100")),
			setup: threeReplicas(objectMetricValue("requests", 200000)),
			want: scaledUpFromThree(6, objectValueName, []string{"scale_up/none/Object"}, v2.MetricStatus{
				Type: autoscalingv2.ObjectMetricSourceType,
				Object: &v2.ObjectMetricStatus{
					DescribedObject: describedIngress,
					Metric:          v2.MetricIdentifier{Name: "requests"},
					Current:         autoscalingv2.MetricValueStatus{Value: milliQ(200000)},
				},
			}),
			check: func(t *testing.T, h *harness) {
				reqs := h.metrics.Requests()
				if len(reqs) != 1 || reqs[0].ObjectRef == nil || *reqs[0].ObjectRef != describedIngress || reqs[0].Namespace != testNamespace {
					t.Errorf("metric requests = %+v, want one object request for the Ingress", reqs)
				}
			},
		},
		{
			name:  "object metric average value divides by the status replicas and is named as upstream names it",
			hpa:   newHPA(1, 10, ingressAverage("requests", "50")),
			setup: threeReplicas(objectMetricValue("requests", 300000)),
			want: scaledUpFromThree(6, objectAverageName, []string{"scale_up/none/Object"}, v2.MetricStatus{
				Type: autoscalingv2.ObjectMetricSourceType,
				Object: &v2.ObjectMetricStatus{
					DescribedObject: describedIngress,
					Metric:          v2.MetricIdentifier{Name: "requests"},
					Current:         autoscalingv2.MetricValueStatus{AverageValue: milliQ(100000)},
				},
			}),
		},
		{
			name:  "external metric value sums the series and shares it among the ready pods",
			hpa:   newHPA(1, 10, externalValue("queue", "10")),
			setup: threeReplicas(externalSeries("queue", 5000, 15000)),
			want:  scaledUpFromThree(6, externalQueueName, []string{"scale_up/none/External"}, externalValueStatus("queue", 20000)),
		},
		{
			name:  "external metric average value divides by the status replicas",
			hpa:   newHPA(1, 10, externalAverage("queue", "10")),
			setup: threeReplicas(externalSeries("queue", 60000)),
			want: scaledUpFromThree(6, externalQueueName, []string{"scale_up/none/External"}, v2.MetricStatus{
				Type: autoscalingv2.ExternalMetricSourceType,
				External: &v2.ExternalMetricStatus{
					Metric:  v2.MetricIdentifier{Name: "queue"},
					Current: autoscalingv2.MetricValueStatus{AverageValue: milliQ(20000)},
				},
			}),
		},
		{
			name: "external metric selector is passed to the adapter and named in the rescale reason",
			hpa: newHPA(1, 10, func() v2.MetricSpec {
				m := externalValue("queue", "10")
				m.External.Metric.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "orders"}}
				return m
			}()),
			setup: threeReplicas(externalSeries("queue", 20000)),
			want: scaledUpFromThree(6, `external metric queue(&LabelSelector{MatchLabels:map[string]string{queue: orders,},MatchExpressions:[]LabelSelectorRequirement{},})`,
				[]string{"scale_up/none/External"}, v2.MetricStatus{
					Type: autoscalingv2.ExternalMetricSourceType,
					External: &v2.ExternalMetricStatus{
						Metric:  v2.MetricIdentifier{Name: "queue", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "orders"}}},
						Current: autoscalingv2.MetricValueStatus{Value: milliQ(20000)},
					},
				}),
			check: func(t *testing.T, h *harness) {
				reqs := h.metrics.Requests()
				if len(reqs) != 1 || reqs[0].Selector.String() != "queue=orders" {
					t.Errorf("metric requests = %+v, want one external request with selector queue=orders", reqs)
				}
			},
		},
		{
			name:  "the largest proposal over several metrics wins and names the rescale reason",
			hpa:   newHPA(1, 10, cpuUtilization(50), podsAverage("qps", "10"), externalValue("queue", "10")),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), podsMetricValues("qps", 20000, 20000, 20000), externalSeries("queue", 13000)),
			want: scaledUpFromThree(6, podsMetricName,
				[]string{"none/none/Resource", "scale_up/none/Pods", "scale_up/none/External"},
				cpuUtilizationStatus(50, 50), podsMetricStatus("qps", 20000), externalValueStatus("queue", 13000)),
		},
	})
}

func TestParityInvalidMetrics(t *testing.T) {
	cpuChain := "failed to get cpu resource metric value: " + cpuCause
	runParity(t, []parityScenario{
		{
			name:  "one metric failing and another asking to scale up scales up and returns the error",
			hpa:   newHPA(1, 10, cpuUtilization(50), podsAverage("qps", "10")),
			setup: threeReplicas(storedReplicas(3), cpuFails(errBoom), podsMetricValues("qps", 20000, 20000, 20000)),
			want: parityOutcome{
				err:     invalidMetricsMsg(1, 2, cpuChain),
				updates: []int32{6},
				current: 3, desired: 6,
				metrics:    []v2.MetricStatus{{}, podsMetricStatus("qps", 20000)},
				conditions: []wantCond{condRescaled(6), condValidMetric(podsMetricName), condWithinRange, condNotScaledToZero},
				events: []string{
					"Warning FailedGetResourceMetric " + cpuCause,
					rescaleEvent(6, podsMetricName+" above target"),
				},
				reconciliations: []string{"scale_up/internal"},
				computations:    []string{"none/internal/Resource", "scale_up/none/Pods"},
				statusWrites:    1,
				lastScaleTime:   testStart,
			},
		},
		{
			name:  "one metric failing and another asking to scale down does not scale and reports the first failure",
			hpa:   newHPA(1, 10, cpuUtilization(50), podsAverage("qps", "10")),
			opts:  noDownscaleStabilizationWindow,
			setup: threeReplicas(storedReplicas(3), cpuFails(errBoom), podsMetricValues("qps", 2000, 2000, 2000)),
			want: parityOutcome{
				err:     metricsFailureMsg(1, 2, cpuChain),
				current: 3, desired: 3,
				metrics:    []v2.MetricStatus{{}, podsMetricStatus("qps", 2000)},
				conditions: []wantCond{condGotScale, condUnableToCompute("FailedGetResourceMetric", cpuCause)},
				events: []string{
					"Warning FailedGetResourceMetric " + cpuCause,
					"Warning FailedComputeMetricsReplicas " + invalidMetricsMsg(1, 2, cpuChain),
				},
				reconciliations: []string{"none/internal"},
				computations:    []string{"none/internal/Resource", "scale_down/none/Pods"},
				statusWrites:    1,
			},
		},
		{
			name:  "one metric failing and another holding steady keeps replicas and returns the error",
			hpa:   newHPA(1, 10, cpuUtilization(50), podsAverage("qps", "10")),
			setup: threeReplicas(storedReplicas(3), cpuFails(errBoom), podsMetricValues("qps", 10000, 10000, 10000)),
			want: parityOutcome{
				err:     invalidMetricsMsg(1, 2, cpuChain),
				current: 3, desired: 3,
				metrics:         []v2.MetricStatus{{}, podsMetricStatus("qps", 10000)},
				conditions:      []wantCond{condReadyForNewScale, condValidMetric(podsMetricName), condWithinRange},
				events:          []string{"Warning FailedGetResourceMetric " + cpuCause},
				reconciliations: []string{"none/internal"},
				computations:    []string{"none/internal/Resource", "none/none/Pods"},
				statusWrites:    1,
			},
		},
		{
			name: "all metrics failing reports the first failure and FailedComputeMetricsReplicas, writing current replicas only",
			hpa:  newHPA(1, 10, externalValue("queue", "10"), externalValue("backlog", "10")),
			setup: threeReplicas(externalFails("queue", errBoom), externalFails("backlog", errBoom),
				storedStatus(func(st *v2.HorizontalPodAutoscalerStatus) { st.CurrentReplicas, st.DesiredReplicas = 2, 2 })),
			want: parityOutcome{
				err:     metricsFailureMsg(2, 2, "failed to get queue external metric value: failed to get external metric queue: "+externalCause),
				current: 3, desired: 2,
				metrics:    []v2.MetricStatus{{}, {}},
				conditions: []wantCond{condGotScale, condUnableToCompute("FailedGetExternalMetric", externalCause)},
				events: []string{
					"Warning FailedGetExternalMetric " + externalCause,
					"Warning FailedGetExternalMetric " + externalAuxCause,
					"Warning FailedComputeMetricsReplicas " + invalidMetricsMsg(2, 2, "failed to get queue external metric value: failed to get external metric queue: "+externalCause),
				},
				reconciliations: []string{"none/internal"},
				computations:    []string{"none/internal/External", "none/internal/External"},
				statusWrites:    1,
			},
		},
		{
			name:  "resource metric failure reports FailedGetResourceMetric",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuFails(errBoom)),
			want:  onlyMetricFailed(autoscalingv2.ResourceMetricSourceType, "FailedGetResourceMetric", cpuCause, cpuChain),
		},
		{
			name:  "resource average value failure names the usage",
			hpa:   newHPA(1, 10, cpuAverageValue(50)),
			setup: threeReplicas(storedReplicas(3), cpuFails(errBoom)),
			want: onlyMetricFailed(autoscalingv2.ResourceMetricSourceType, "FailedGetResourceMetric",
				"failed to get cpu usage: unable to get metrics for resource cpu: adapter unavailable",
				"failed to get cpu resource metric value: failed to get cpu usage: unable to get metrics for resource cpu: adapter unavailable"),
		},
		{
			name:  "container resource metric failure reports FailedGetContainerResourceMetric and names the container",
			hpa:   newHPA(1, 10, containerCPUUtilization("app", 50)),
			setup: threeReplicas(storedReplicas(3), cpuFails(errBoom)),
			want: onlyMetricFailed(autoscalingv2.ContainerResourceMetricSourceType, "FailedGetContainerResourceMetric", cpuCause,
				"failed to get app container metric value: "+cpuCause),
		},
		{
			name:  "pods metric failure reports FailedGetPodsMetric",
			hpa:   newHPA(1, 10, podsAverage("qps", "10")),
			setup: threeReplicas(storedReplicas(3), podsMetricFails("qps", errBoom)),
			want: onlyMetricFailed(autoscalingv2.PodsMetricSourceType, "FailedGetPodsMetric", podsCause,
				"failed to get pods metric value: "+podsCause),
		},
		{
			name:  "object value metric failure reports FailedGetObjectMetric",
			hpa:   newHPA(1, 10, ingressValue("requests", "100")),
			setup: threeReplicas(storedReplicas(3), objectMetricFails("requests", errBoom)),
			want: onlyMetricFailed(autoscalingv2.ObjectMetricSourceType, "FailedGetObjectMetric", objectCause,
				"failed to get object metric value: "+objectCause),
		},
		{
			name:  "object average value metric failure reports FailedGetObjectMetric with the metric named",
			hpa:   newHPA(1, 10, ingressAverage("requests", "50")),
			setup: threeReplicas(storedReplicas(3), objectMetricFails("requests", errBoom)),
			want: onlyMetricFailed(autoscalingv2.ObjectMetricSourceType, "FailedGetObjectMetric", objectCause,
				"failed to get object metric value: failed to get requests object metric: "+objectCause),
		},
		{
			name:  "external value metric failure reports FailedGetExternalMetric",
			hpa:   newHPA(1, 10, externalValue("queue", "10")),
			setup: threeReplicas(storedReplicas(3), externalFails("queue", errBoom)),
			want: onlyMetricFailed(autoscalingv2.ExternalMetricSourceType, "FailedGetExternalMetric", externalCause,
				"failed to get queue external metric value: failed to get external metric queue: "+externalCause),
		},
		{
			name:  "external average value metric failure reports FailedGetExternalMetric",
			hpa:   newHPA(1, 10, externalAverage("queue", "10")),
			setup: threeReplicas(storedReplicas(3), externalFails("queue", errBoom)),
			want: onlyMetricFailed(autoscalingv2.ExternalMetricSourceType, "FailedGetExternalMetric", externalCause,
				"failed to get queue external metric value: failed to get queue external metric: "+externalCause),
		},
		{
			name:  "an external metric with no series is a failure",
			hpa:   newHPA(1, 10, externalValue("queue", "10")),
			setup: threeReplicas(storedReplicas(3), externalSeries("queue")),
			want: onlyMetricFailed(autoscalingv2.ExternalMetricSourceType, "FailedGetExternalMetric",
				`unable to get external metric default/queue/nil: metricstest: no metrics returned for external metric "queue" (empty answer)`,
				`failed to get queue external metric value: failed to get external metric queue: unable to get external metric default/queue/nil: metricstest: no metrics returned for external metric "queue" (empty answer)`),
		},
	})
}

func TestParityTolerance(t *testing.T) {
	upTolerance := func(q string) *v2.HorizontalPodAutoscalerBehavior {
		return &v2.HorizontalPodAutoscalerBehavior{
			ScaleUp: &autoscalingv2.HPAScalingRules{Tolerance: ptr.To(resource.MustParse(q))},
		}
	}
	downTolerance := func(q string) *v2.HorizontalPodAutoscalerBehavior {
		return &v2.HorizontalPodAutoscalerBehavior{
			ScaleDown: &autoscalingv2.HPAScalingRules{Tolerance: ptr.To(resource.MustParse(q))},
		}
	}
	held := func(utilization int32, usage int64) parityOutcome {
		return parityOutcome{
			current: 3, desired: 3,
			metrics:         []v2.MetricStatus{cpuUtilizationStatus(utilization, usage)},
			conditions:      []wantCond{condReadyForNewScale, condValidMetric(cpuUtilizationName), condWithinRange},
			reconciliations: []string{"none/none"},
			computations:    []string{"none/none/Resource"},
			statusWrites:    1,
		}
	}

	runParity(t, []parityScenario{
		{
			name:  "a usage ratio within the global tolerance does not scale",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(54, 54, 54)),
			want:  held(54, 54),
		},
		{
			name:  "a usage ratio just beyond the global tolerance scales",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(56, 56, 56)),
			want: func() parityOutcome {
				o := scaledUpFromThree(4, cpuUtilizationName, []string{"scale_up/none/Resource"}, cpuUtilizationStatus(56, 56))
				return o
			}(),
		},
		{
			name:  "the tolerance flag widens the band",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			opts:  harnessOptions{tolerance: ptr.To(0.2)},
			setup: threeReplicas(storedReplicas(3), cpuUsage(58, 58, 58)),
			want:  held(58, 58),
		},
		{
			name:  "a behavior scale-up tolerance narrower than the flag is honored (HPAConfigurableTolerance is GA in v1.37)",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), upTolerance("0.01")),
			setup: threeReplicas(storedReplicas(3), cpuUsage(53, 53, 53)),
			want: parityOutcome{
				updates: []int32{4},
				current: 3, desired: 4,
				metrics:         []v2.MetricStatus{cpuUtilizationStatus(53, 53)},
				conditions:      []wantCond{condRescaled(4), condValidMetric(cpuUtilizationName), condWithinRange, condNotScaledToZero},
				events:          []string{rescaleEvent(4, cpuUtilizationName+" above target")},
				reconciliations: []string{"scale_up/none"},
				computations:    []string{"scale_up/none/Resource"},
				statusWrites:    1,
				lastScaleTime:   testStart,
			},
		},
		{
			name:  "a behavior scale-down tolerance wider than the flag holds a scale-down",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), downTolerance("0.5")),
			opts:  noDownscaleStabilizationWindow,
			setup: threeReplicas(storedReplicas(3), cpuUsage(30, 30, 30)),
			want:  held(30, 30),
		},
		{
			name:  "a behavior scale-down tolerance does not widen the scale-up band",
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), downTolerance("0.5")),
			setup: threeReplicas(storedReplicas(3), cpuUsage(56, 56, 56)),
			want:  scaledUpFromThree(4, cpuUtilizationName, []string{"scale_up/none/Resource"}, cpuUtilizationStatus(56, 56)),
		},
	})
}

func TestParityMetricSpecsTheControllerRefuses(t *testing.T) {
	bogusSelector := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}
	const bogusCause = `"Near" is not a valid label selector operator`
	withMetricSelector := func(m v2.MetricSpec) v2.MetricSpec {
		switch {
		case m.Pods != nil:
			m.Pods.Metric.Selector = bogusSelector
		case m.Object != nil:
			m.Object.Metric.Selector = bogusSelector
		case m.External != nil:
			m.External.Metric.Selector = bogusSelector
		}
		return m
	}
	objectValueTypeWithAverage := ingressAverage("requests", "50")
	objectValueTypeWithAverage.Object.Target.Type = autoscalingv2.ValueMetricType
	objectAverageTypeWithValue := ingressValue("requests", "50")
	objectAverageTypeWithValue.Object.Target.Type = autoscalingv2.AverageValueMetricType

	runParity(t, []parityScenario{
		{
			name:  "a pods metric with an unparsable metric selector reports FailedGetPodsMetric",
			hpa:   newHPA(1, 10, withMetricSelector(podsAverage("qps", "10"))),
			setup: threeReplicas(storedReplicas(3), podsMetricValues("qps", 1000, 1000, 1000)),
			want: onlyMetricFailed(autoscalingv2.PodsMetricSourceType, "FailedGetPodsMetric", bogusCause,
				"failed to get pods metric value: "+bogusCause),
			check: noMetricsAsked,
		},
		{
			name:  "an object metric with an unparsable metric selector reports FailedGetObjectMetric",
			hpa:   newHPA(1, 10, withMetricSelector(ingressValue("requests", "100"))),
			setup: threeReplicas(storedReplicas(3), objectMetricValue("requests", 100000)),
			want: onlyMetricFailed(autoscalingv2.ObjectMetricSourceType, "FailedGetObjectMetric", bogusCause,
				"failed to get object metric value: "+bogusCause),
			check: noMetricsAsked,
		},
		{
			name:  "an external metric with an unparsable metric selector reports FailedGetExternalMetric",
			hpa:   newHPA(1, 10, withMetricSelector(externalValue("queue", "10"))),
			setup: threeReplicas(storedReplicas(3), externalSeries("queue", 10000)),
			want: onlyMetricFailed(autoscalingv2.ExternalMetricSourceType, "FailedGetExternalMetric",
				"invalid selector for external metric queue: "+bogusCause,
				"failed to get queue external metric value: failed to get external metric queue: invalid selector for external metric queue: "+bogusCause),
			check: noMetricsAsked,
		},
		{
			name:  "an object metric of type Value with only an average value set has no usable target",
			hpa:   newHPA(1, 10, objectValueTypeWithAverage),
			setup: threeReplicas(storedReplicas(3), objectMetricValue("requests", 100000)),
			want: onlyMetricFailed(autoscalingv2.ObjectMetricSourceType, "FailedGetObjectMetric",
				"invalid object metric source: neither a value target nor an average value target was set",
				"failed to get object metric value: invalid object metric source: neither a value target nor an average value target was set"),
			check: noMetricsAsked,
		},
		{
			name:  "an object metric of type AverageValue with only a value set has no usable target",
			hpa:   newHPA(1, 10, objectAverageTypeWithValue),
			setup: threeReplicas(storedReplicas(3), objectMetricValue("requests", 100000)),
			want: onlyMetricFailed(autoscalingv2.ObjectMetricSourceType, "FailedGetObjectMetric",
				"invalid object metric source: neither a value target nor an average value target was set",
				"failed to get object metric value: invalid object metric source: neither a value target nor an average value target was set"),
			check: noMetricsAsked,
		},
	})
}

// passSkippingSpecCheck runs the steps of a pass up to the metrics without
// the spec check, as for an HPA that reached the controller without any
// validation: the metric steps must still refuse it gracefully.
func passSkippingSpecCheck(mutate func(*v2.HorizontalPodAutoscaler)) func(h *harness) error {
	return func(h *harness) error {
		p := h.c.newPass(h.ctx, h.source, h.hpa(testHPAName), h.key(testHPAName))
		mutate(p.hpa)
		return p.record(p.decide())
	}
}

func TestParityUnvalidatedMetricSpecs(t *testing.T) {
	unvalidated := func(m v2.MetricSpec) func(*v2.HorizontalPodAutoscaler) {
		return func(hpa *v2.HorizontalPodAutoscaler) { hpa.Spec.Metrics = []v2.MetricSpec{m} }
	}
	// As upstream, only an unknown metric type labels its computation
	// "spec"; since v1.37 the pass's error carries it too, wrapped.
	specFailure := func(metricType autoscalingv2.MetricSourceType, reason, cause, chain string) parityOutcome {
		o := onlyMetricFailed(metricType, reason, cause, chain)
		o.reconciliations = nil
		o.computations = []string{"none/spec/" + string(metricType)}
		o.spec = true
		return o
	}
	internalFailure := func(metricType autoscalingv2.MetricSourceType, reason, cause, chain string) parityOutcome {
		o := onlyMetricFailed(metricType, reason, cause, chain)
		o.reconciliations = nil
		return o
	}
	noTarget := func(m v2.MetricSpec) v2.MetricSpec {
		switch {
		case m.Resource != nil:
			m.Resource.Target = autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType}
		case m.ContainerResource != nil:
			m.ContainerResource.Target = autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType}
		case m.Pods != nil:
			m.Pods.Target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType}
		case m.External != nil:
			m.External.Target = autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType}
		}
		return m
	}
	const resourceNoTarget = "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set"
	const externalNoTarget = "invalid external metric source: neither a value target nor an average value target was set"

	runParity(t, []parityScenario{
		{
			name:  "an unknown metric type fails its metric with InvalidMetricSourceType and a spec label, without panicking",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3)),
			run:   passSkippingSpecCheck(unvalidated(v2.MetricSpec{Type: "CheddarCheese"})),
			want: specFailure("CheddarCheese", "InvalidMetricSourceType",
				`unknown metric source type "CheddarCheese"`, `unknown metric source type "CheddarCheese"`),
		},
		{
			name:  "a pods metric without a target fails its metric like the other sources without a target, without panicking",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), podsMetricValues("qps", 1000, 1000, 1000)),
			run:   passSkippingSpecCheck(unvalidated(noTarget(podsAverage("qps", "10")))),
			want: internalFailure(autoscalingv2.PodsMetricSourceType, "FailedGetPodsMetric",
				"invalid pods metric source: no average value target was set",
				"failed to get pods metric value: invalid pods metric source: no average value target was set"),
		},
		{
			name:  "a resource metric without a target fails its metric",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50)),
			run:   passSkippingSpecCheck(unvalidated(noTarget(cpuUtilization(50)))),
			want: internalFailure(autoscalingv2.ResourceMetricSourceType, "FailedGetResourceMetric", resourceNoTarget,
				"failed to get cpu resource metric value: "+resourceNoTarget),
		},
		{
			name:  "a container resource metric without a target fails its metric",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50)),
			run:   passSkippingSpecCheck(unvalidated(noTarget(containerCPUUtilization("app", 50)))),
			want: internalFailure(autoscalingv2.ContainerResourceMetricSourceType, "FailedGetContainerResourceMetric", resourceNoTarget,
				"failed to get app container metric value: "+resourceNoTarget),
		},
		{
			name:  "an external metric without a target fails its metric",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), externalSeries("queue", 1000)),
			run:   passSkippingSpecCheck(unvalidated(noTarget(externalValue("queue", "10")))),
			want: internalFailure(autoscalingv2.ExternalMetricSourceType, "FailedGetExternalMetric", externalNoTarget,
				"failed to get queue external metric value: "+externalNoTarget),
		},
	})
}
