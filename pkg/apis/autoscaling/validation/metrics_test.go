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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// TestValidateResourceMetrics pins the rules of Resource and
// ContainerResource metric sources.
func TestValidateResourceMetrics(t *testing.T) {
	const (
		res = "spec.metrics[0].resource"
		crs = "spec.metrics[0].containerResource"
	)
	runValidationCases(t, []validationCase{
		{
			name: "a CPU utilization Resource metric is valid",
			hpa:  hpa(metrics(cpuUtilization(50))),
		},
		{
			name: "a memory AverageValue Resource metric is valid",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceMemory, averageValueTarget("512Mi")))),
		},
		{
			name: "a Resource metric's name is only checked for presence",
			hpa:  hpa(metrics(resourceMetric("NotAResource", utilizationTarget(50)))),
		},
		{
			name: "a Resource metric needs a resource name",
			hpa:  hpa(metrics(resourceMetric("", utilizationTarget(50)))),
			want: []wantErr{required(res + ".name")},
		},
		{
			name: "a Resource metric needs a utilization or an average value",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceCPU, autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType}))),
			want: []wantErr{required(res + ".target.averageUtilization")},
		},
		{
			name: "a Resource metric may not set both utilization and average value",
			hpa: hpa(metrics(resourceMetric(corev1.ResourceCPU, autoscalingv2.MetricTarget{
				Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50), AverageValue: qty("100m"),
			}))),
			want: []wantErr{forbidden(res + ".target.averageValue")},
		},
		{
			name: "a Resource metric's Value target does not count as a utilization or average value",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceCPU, valueTarget("1")))),
			want: []wantErr{required(res + ".target.averageUtilization")},
		},
		{
			name: "averageUtilization 0 is invalid",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceCPU, utilizationTarget(0)))),
			want: []wantErr{invalid(res + ".target.averageUtilization")},
		},
		{
			name: "negative averageUtilization is invalid",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceCPU, utilizationTarget(-10)))),
			want: []wantErr{invalid(res + ".target.averageUtilization")},
		},
		{
			name: "averageUtilization above 100 is valid",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceCPU, utilizationTarget(250)))),
		},
		{
			name: "averageValue 0 is invalid",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceMemory, averageValueTarget("0")))),
			want: []wantErr{invalid(res + ".target.averageValue")},
		},
		{
			name: "negative averageValue is invalid",
			hpa:  hpa(metrics(resourceMetric(corev1.ResourceMemory, averageValueTarget("-1Mi")))),
			want: []wantErr{invalid(res + ".target.averageValue")},
		},
		{
			name: "a metric target needs a type",
			hpa: hpa(metrics(resourceMetric(corev1.ResourceCPU, autoscalingv2.MetricTarget{
				AverageUtilization: ptr.To[int32](50),
			}))),
			want: []wantErr{required(res + ".target.type")},
		},
		{
			name: "an unknown metric target type is invalid",
			hpa: hpa(metrics(resourceMetric(corev1.ResourceCPU, autoscalingv2.MetricTarget{
				Type: "Percent", AverageUtilization: ptr.To[int32](50),
			}))),
			want: []wantErr{invalid(res + ".target.type")},
		},
		{
			name: "a ContainerResource CPU utilization metric is valid",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceCPU, "app", utilizationTarget(60)))),
		},
		{
			name: "a ContainerResource memory AverageValue metric is valid",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceMemory, "app", averageValueTarget("1Gi")))),
		},
		{
			name: "a ContainerResource ephemeral-storage metric is valid",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceEphemeralStorage, "app", averageValueTarget("1Gi")))),
		},
		{
			name: "a ContainerResource huge pages metric is valid",
			hpa:  hpa(metrics(containerMetric("hugepages-2Mi", "app", averageValueTarget("4Mi")))),
		},
		{
			name: "a ContainerResource extended resource metric is valid",
			hpa:  hpa(metrics(containerMetric("example.com/gpu", "app", averageValueTarget("1")))),
		},
		{
			name: "a ContainerResource resource in the kubernetes.io namespace is valid",
			hpa:  hpa(metrics(containerMetric("kubernetes.io/network-bandwidth", "app", averageValueTarget("1")))),
		},
		{
			name: "a ContainerResource metric needs a resource name",
			hpa:  hpa(metrics(containerMetric("", "app", utilizationTarget(60)))),
			want: []wantErr{required(crs + ".name")},
		},
		{
			name: "an unknown unqualified container resource name is neither standard nor a container resource",
			hpa:  hpa(metrics(containerMetric("InvalidResource", "app", utilizationTarget(60)))),
			want: []wantErr{invalid(crs + ".name"), invalid(crs + ".name")},
		},
		{
			name: "a standard resource that containers cannot request is refused",
			hpa:  hpa(metrics(containerMetric(corev1.ResourcePods, "app", averageValueTarget("1")))),
			want: []wantErr{invalid(crs + ".name")},
		},
		{
			name: "a quota resource name is not a container resource",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceRequestsCPU, "app", averageValueTarget("1")))),
			want: []wantErr{invalid(crs + ".name")},
		},
		{
			name: "a container resource name must be a qualified name",
			hpa:  hpa(metrics(containerMetric("a/b/c", "app", averageValueTarget("1")))),
			want: []wantErr{invalid(crs + ".name")},
		},
		{
			name: "an extended resource name with the requests. prefix is refused",
			hpa:  hpa(metrics(containerMetric("requests.example.com/gpu", "app", averageValueTarget("1")))),
			want: []wantErr{invalid(crs + ".name")},
		},
		{
			name: "a ContainerResource metric needs a container name",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceCPU, "", utilizationTarget(60)))),
			want: []wantErr{required(crs + ".container")},
		},
		{
			name: "a container name must be a DNS-1123 label",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceCPU, "App", utilizationTarget(60)))),
			want: []wantErr{invalid(crs + ".container")},
		},
		{
			name: "a container name may not contain dots",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceCPU, "app.sidecar", utilizationTarget(60)))),
			want: []wantErr{invalid(crs + ".container")},
		},
		{
			name: "a ContainerResource metric needs a utilization or an average value",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceCPU, "app", valueTarget("1")))),
			want: []wantErr{required(crs + ".target.averageUtilization")},
		},
		{
			name: "a ContainerResource metric may not set both utilization and average value",
			hpa: hpa(metrics(containerMetric(corev1.ResourceCPU, "app", autoscalingv2.MetricTarget{
				Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50), AverageValue: qty("100m"),
			}))),
			want: []wantErr{forbidden(crs + ".target.averageValue")},
		},
		{
			name: "a ContainerResource metric with averageUtilization 0 is invalid",
			hpa:  hpa(metrics(containerMetric(corev1.ResourceCPU, "app", utilizationTarget(0)))),
			want: []wantErr{invalid(crs + ".target.averageUtilization")},
		},
		{
			name: "a ContainerResource metric with every field wrong reports each",
			hpa: hpa(metrics(containerMetric("", "", autoscalingv2.MetricTarget{
				Type: "Bogus",
			}))),
			want: []wantErr{
				required(crs + ".name"), required(crs + ".container"),
				invalid(crs + ".target.type"), required(crs + ".target.averageUtilization"),
			},
		},
	})
}

// TestValidatePodsAndObjectMetrics pins the rules of Pods and Object metric
// sources, including the apiVersion ratcheting of describedObject.
func TestValidatePodsAndObjectMetrics(t *testing.T) {
	const (
		pods = "spec.metrics[0].pods"
		obj  = "spec.metrics[0].object"
	)
	badDescribed := func() v2.MetricSpec {
		return objectMetric("Ingress", "main", "networking.k8s.io/v1/v2", "rps", valueTarget("10"))
	}
	runValidationCases(t, []validationCase{
		{
			name: "a Pods AverageValue metric is valid",
			hpa:  hpa(metrics(podsMetric("packets-per-second", averageValueTarget("1k")))),
		},
		{
			name: "a Pods metric needs a metric name",
			hpa:  hpa(metrics(podsMetric("", averageValueTarget("1k")))),
			want: []wantErr{required(pods + ".metric.name")},
		},
		{
			name: "a metric name may not contain a slash",
			hpa:  hpa(metrics(podsMetric("http/requests", averageValueTarget("1k")))),
			want: []wantErr{invalid(pods + ".metric.name")},
		},
		{
			name: "a metric name may not be a dot-dot path segment",
			hpa:  hpa(metrics(podsMetric("..", averageValueTarget("1k")))),
			want: []wantErr{invalid(pods + ".metric.name")},
		},
		{
			name: "a metric name may contain colons and dots",
			hpa:  hpa(metrics(podsMetric("http.requests:rate5m", averageValueTarget("1k")))),
		},
		{
			name: "a Pods metric needs an averageValue",
			hpa:  hpa(metrics(podsMetric("packets-per-second", valueTarget("1k")))),
			want: []wantErr{required(pods + ".target.averageValue")},
		},
		{
			name: "a Pods metric with averageValue 0 is invalid",
			hpa:  hpa(metrics(podsMetric("packets-per-second", averageValueTarget("0")))),
			want: []wantErr{invalid(pods + ".target.averageValue")},
		},
		{
			name: "a Pods metric with a negative averageValue is invalid",
			hpa:  hpa(metrics(podsMetric("packets-per-second", averageValueTarget("-1")))),
			want: []wantErr{invalid(pods + ".target.averageValue")},
		},
		{
			name: "an Object metric with a Value target is valid",
			hpa:  hpa(metrics(ingressObjectMetric())),
		},
		{
			name: "an Object metric with an AverageValue target is valid",
			hpa:  hpa(metrics(objectMetric("Service", "api", "v1", "rps", averageValueTarget("100")))),
		},
		{
			name: "an Object metric's describedObject may leave apiVersion empty",
			hpa:  hpa(metrics(objectMetric("Service", "api", "", "rps", valueTarget("100")))),
		},
		{
			name: "an Object metric needs a describedObject kind",
			hpa:  hpa(metrics(objectMetric("", "api", "v1", "rps", valueTarget("100")))),
			want: []wantErr{required(obj + ".describedObject.kind")},
		},
		{
			name: "an Object metric needs a describedObject name",
			hpa:  hpa(metrics(objectMetric("Service", "", "v1", "rps", valueTarget("100")))),
			want: []wantErr{required(obj + ".describedObject.name")},
		},
		{
			name: "an Object metric's describedObject name may not contain a slash",
			hpa:  hpa(metrics(objectMetric("Service", "a/b", "v1", "rps", valueTarget("100")))),
			want: []wantErr{invalid(obj + ".describedObject.name")},
		},
		{
			name: "a malformed describedObject apiVersion is refused on create",
			hpa:  hpa(metrics(badDescribed())),
			want: []wantErr{invalid(obj + ".describedObject.apiVersion")},
		},
		{
			name: "an Object metric needs a metric name",
			hpa:  hpa(metrics(objectMetric("Service", "api", "v1", "", valueTarget("100")))),
			want: []wantErr{required(obj + ".metric.name")},
		},
		{
			name: "an Object metric needs a value or an averageValue",
			hpa:  hpa(metrics(objectMetric("Service", "api", "v1", "rps", utilizationTarget(50)))),
			want: []wantErr{required(obj + ".target.averageValue")},
		},
		{
			name: "an Object metric with value 0 is invalid",
			hpa:  hpa(metrics(objectMetric("Service", "api", "v1", "rps", valueTarget("0")))),
			want: []wantErr{invalid(obj + ".target.value")},
		},
		{
			name: "an Object metric may set both value and averageValue",
			hpa: hpa(metrics(objectMetric("Service", "api", "v1", "rps", autoscalingv2.MetricTarget{
				Type: autoscalingv2.ValueMetricType, Value: qty("1"), AverageValue: qty("1"),
			}))),
		},
		{
			name: "an update that keeps an invalid describedObject apiVersion stays valid",
			old:  hpa(metrics(badDescribed())),
			hpa:  hpa(metrics(badDescribed()), maxReplicas(20)),
		},
		{
			name: "an update whose old object had an invalid describedObject lets every Object metric skip the check",
			old:  hpa(metrics(badDescribed())),
			hpa: hpa(metrics(badDescribed(),
				objectMetric("Ingress", "other", "x/y/z", "rps", valueTarget("10")))),
		},
		{
			name: "an update that introduces an invalid describedObject apiVersion is refused",
			old:  hpa(metrics(ingressObjectMetric())),
			hpa:  hpa(metrics(badDescribed())),
			want: []wantErr{invalid(obj + ".describedObject.apiVersion")},
		},
		{
			name: "an update whose old object had no Object metric checks describedObject apiVersion",
			old:  hpa(),
			hpa:  hpa(metrics(badDescribed())),
			want: []wantErr{invalid(obj + ".describedObject.apiVersion")},
		},
		{
			name: "the describedObject ratchet still checks describedObject kind",
			old:  hpa(metrics(badDescribed())),
			hpa:  hpa(metrics(objectMetric("", "main", "networking.k8s.io/v1/v2", "rps", valueTarget("10")))),
			want: []wantErr{required(obj + ".describedObject.kind")},
		},
		{
			name: "a stored object with an invalid describedObject apiVersion is not refused for it",
			op:   stored,
			hpa:  hpa(metrics(badDescribed())),
		},
	})
}

// TestValidateExternalMetrics pins the upstream rules of External metric
// sources; the fallback has its own test.
func TestValidateExternalMetrics(t *testing.T) {
	const ext = "spec.metrics[0].external"
	runValidationCases(t, []validationCase{
		{
			name: "an External AverageValue metric with a selector is valid",
			hpa:  hpa(metrics(queueMetric())),
		},
		{
			name: "an External Value metric is valid",
			hpa:  hpa(metrics(externalMetric("queue_messages_ready", valueTarget("300")))),
		},
		{
			name: "an External metric needs a metric name",
			hpa:  hpa(metrics(externalMetric("", valueTarget("300")))),
			want: []wantErr{required(ext + ".metric.name")},
		},
		{
			name: "an External metric name may not contain a percent sign",
			hpa:  hpa(metrics(externalMetric("queue%20ready", valueTarget("300")))),
			want: []wantErr{invalid(ext + ".metric.name")},
		},
		{
			name: "an External metric needs a value or an averageValue",
			hpa:  hpa(metrics(externalMetric("queue", utilizationTarget(50)))),
			want: []wantErr{required(ext + ".target.averageValue")},
		},
		{
			name: "an External metric may not set both value and averageValue",
			hpa: hpa(metrics(externalMetric("queue", autoscalingv2.MetricTarget{
				Type: autoscalingv2.ValueMetricType, Value: qty("1"), AverageValue: qty("1"),
			}))),
			want: []wantErr{forbidden(ext + ".target.value")},
		},
		{
			name: "an External metric with a negative value is invalid",
			hpa:  hpa(metrics(externalMetric("queue", valueTarget("-5")))),
			want: []wantErr{invalid(ext + ".target.value")},
		},
		{
			name: "an External metric with averageValue 0 is invalid",
			hpa:  hpa(metrics(externalMetric("queue", averageValueTarget("0")))),
			want: []wantErr{invalid(ext + ".target.averageValue")},
		},
		{
			name: "an External metric target needs a type",
			hpa:  hpa(metrics(externalMetric("queue", autoscalingv2.MetricTarget{Value: qty("1")}))),
			want: []wantErr{required(ext + ".target.type")},
		},
		{
			name: "an External metric with an unknown target type is invalid",
			hpa:  hpa(metrics(externalMetric("queue", autoscalingv2.MetricTarget{Type: "Sum", Value: qty("1")}))),
			want: []wantErr{invalid(ext + ".target.type")},
		},
	})
}

// TestValidateMetricSpecShape pins the rules that tie a metric's type to the
// one source it populates.
func TestValidateMetricSpecShape(t *testing.T) {
	const m0 = "spec.metrics[0]"
	twoSources := func(typ autoscalingv2.MetricSourceType) v2.MetricSpec {
		m := queueMetric()
		m.Pods = podsMetric("rps", averageValueTarget("1")).Pods
		m.Type = typ
		return m
	}
	runValidationCases(t, []validationCase{
		{
			name: "several metrics of every type are valid together",
			hpa: hpa(metrics(
				cpuUtilization(70),
				containerMetric(corev1.ResourceMemory, "app", averageValueTarget("1Gi")),
				podsMetric("rps", averageValueTarget("10")),
				ingressObjectMetric(),
				queueMetric(),
			)),
		},
		{
			name: "a metric needs a type",
			hpa:  hpa(metrics(v2.MetricSpec{Resource: cpuUtilization(50).Resource})),
			want: []wantErr{required(m0 + ".type")},
		},
		{
			name: "a metric with no type and no source reports only the type",
			hpa:  hpa(metrics(v2.MetricSpec{})),
			want: []wantErr{required(m0 + ".type")},
		},
		{
			name: "an unknown metric type is not supported",
			hpa:  hpa(metrics(v2.MetricSpec{Type: "Custom", Resource: cpuUtilization(50).Resource})),
			want: []wantErr{notSupported(m0 + ".type")},
		},
		{
			name: "an Object metric must populate object",
			hpa:  hpa(metrics(v2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType})),
			want: []wantErr{required(m0 + ".object")},
		},
		{
			name: "a Pods metric must populate pods",
			hpa:  hpa(metrics(v2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Resource: cpuUtilization(50).Resource})),
			want: []wantErr{required(m0 + ".pods")},
		},
		{
			name: "a Resource metric must populate resource",
			hpa:  hpa(metrics(v2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Pods: podsMetric("rps", averageValueTarget("1")).Pods})),
			want: []wantErr{required(m0 + ".resource")},
		},
		{
			name: "a ContainerResource metric must populate containerResource",
			hpa:  hpa(metrics(v2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType, Resource: cpuUtilization(50).Resource})),
			want: []wantErr{required(m0 + ".containerResource")},
		},
		{
			name: "an External metric must populate external",
			hpa:  hpa(metrics(v2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, Object: ingressObjectMetric().Object})),
			want: []wantErr{required(m0 + ".external")},
		},
		{
			name: "a metric with its own source and another one forbids the other",
			hpa:  hpa(metrics(twoSources(autoscalingv2.ExternalMetricSourceType))),
			want: []wantErr{forbidden(m0 + ".pods")},
		},
		{
			name: "a metric whose type matches neither of two sources requires its own and forbids both",
			hpa:  hpa(metrics(twoSources(autoscalingv2.ResourceMetricSourceType))),
			want: []wantErr{required(m0 + ".resource"), forbidden(m0 + ".external"), forbidden(m0 + ".pods")},
		},
		{
			name: "a metric of unknown type with two sources forbids both",
			hpa:  hpa(metrics(twoSources("Custom"))),
			want: []wantErr{notSupported(m0 + ".type"), forbidden(m0 + ".external"), forbidden(m0 + ".pods")},
		},
		{
			name: "only the first populated source is validated, in upstream's order",
			hpa: hpa(metrics(v2.MetricSpec{
				Type:   autoscalingv2.PodsMetricSourceType,
				Object: objectMetric("Service", "api", "v1", "", valueTarget("1")).Object,
				Pods:   podsMetric("", averageValueTarget("1")).Pods,
			})),
			want: []wantErr{required(m0 + ".object.metric.name"), forbidden(m0 + ".object")},
		},
		{
			name: "errors of a later metric carry its index",
			hpa:  hpa(metrics(cpuUtilization(50), podsMetric("", averageValueTarget("1")))),
			want: []wantErr{required("spec.metrics[1].pods.metric.name")},
		},
	})
}
