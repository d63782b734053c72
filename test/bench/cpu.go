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
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// The CPU utilization scenario (ScenarioCPU): every pod requests
// cpuRequestMilli of CPU and its HPA targets cpuTargetPercent of it.
// metrics-server reads the usage kwok's emulated kubelets report from the
// pods' kwok.x-k8s.io/usage-cpu annotation, 1m when there is none: an
// idle pod, 1% of its request, holds its HPA at minReplicas, the steady
// state of the other scenarios. The latency phase gives the pods of a
// latency Deployment the load that asks for Options.latencyReplicas;
// the pods it adds stay idle, so the HPA stops there.
const (
	cpuRequestMilli  = 100
	cpuTargetPercent = 50
	// cpuUsageAnnotation is kwok's per-pod usage (test/localcluster's
	// kwok/usage.yaml).
	cpuUsageAnnotation = "kwok.x-k8s.io/usage-cpu"
)

// cpuRequests is a workload pod's request under CPUUtilization.
func cpuRequests() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: *resource.NewMilliQuantity(cpuRequestMilli, resource.DecimalSI),
	}}
}

// cpuMetric is the HPAs' metric under CPUUtilization.
func cpuMetric() autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](cpuTargetPercent)},
		},
	}
}

// raisedCPUMilli is the usage of each of a latency Deployment's
// Options.podsPerHPA pods that asks for Options.latencyReplicas: the
// largest whose utilization ratio, times the pods, stays within that
// count. With the new pods idle (1m) the ratio then falls within the
// tolerance, so the HPA holds there.
func (o Options) raisedCPUMilli() int64 {
	p := int64(o.podsPerHPA())
	return int64(o.latencyReplicas()) * cpuRequestMilli * cpuTargetPercent / 100 / p
}

// setLatencyLoad raises (or, raised false, takes back) what the latency
// HPAs of the given trials read: their External metric in the adapter's
// ConfigMap, or under CPUUtilization their pods' CPU usage.
func setLatencyLoad(ctx context.Context, kube kubernetes.Interface, o Options, raised bool, trials ...int) error {
	if !o.CPUUtilization {
		names := make([]string, len(trials))
		for i, t := range trials {
			names[i] = latencyMetric(t)
		}
		return setLatencyMetrics(ctx, kube, o, raised, names...)
	}
	usage := ptr.To(fmt.Sprintf("%dm", o.raisedCPUMilli()))
	if !raised {
		usage = nil // kwok's default, 1m
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]*string{cpuUsageAnnotation: usage}}})
	if err != nil {
		return err
	}
	for i := range o.LatencyHPAs {
		if !slices.Contains(trials, i%o.latencyTrials()) {
			continue
		}
		ns, name := o.namespaceOf(i), workloadName(i)
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			return fmt.Errorf("listing the pods of %s: %w", name, err)
		}
		for _, p := range pods.Items {
			if _, err := kube.CoreV1().Pods(ns).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				return fmt.Errorf("setting the CPU usage of pod %s: %w", p.Name, err)
			}
		}
	}
	return nil
}

// allTrials lists every latency trial.
func (o Options) allTrials() []int {
	out := make([]int, o.latencyTrials())
	for t := range out {
		out[t] = t
	}
	return out
}

// metricsAPI is the API the scenario's HPAs read, for the table's rows.
func (o Options) metricsAPI() string {
	if o.CPUUtilization {
		return localcluster.MetricsGroup
	}
	return externalGroup
}

// resourceMetricsFetches is metrics-server's count of PodMetrics lists
// served (its apiserver_request_total), from its /metrics page.
func resourceMetricsFetches(page string) (float64, error) {
	samples, err := parseSamples(strings.NewReader(page), "apiserver_request_total")
	if err != nil {
		return 0, err
	}
	return sumWhere(samples, "apiserver_request_total", map[string]string{"group": localcluster.MetricsGroup, "resource": "pods", "verb": "LIST"}), nil
}

// metricsProvider is the process that serves the HPAs' metrics, and its
// count of the fetches it has served.
type metricsProvider struct {
	pid     int
	fetches func(context.Context) (float64, error)
}

// newMetricsProvider is the adapter, or under CPUUtilization the
// cluster's metrics-server (its process found in the cluster's run
// directory), whose LISTs of PodMetrics are the fetches.
func newMetricsProvider(o Options, ad *adapter, cluster *localcluster.Cluster) (metricsProvider, error) {
	if !o.CPUUtilization {
		return metricsProvider{pid: ad.proc.pid(), fetches: ad.externalFetches}, nil
	}
	pid, err := findProcess("metrics-server", cluster.RunDir())
	if err != nil {
		return metricsProvider{}, err
	}
	return metricsProvider{pid: pid, fetches: func(ctx context.Context) (float64, error) {
		page, err := cluster.MetricsServerMetrics(ctx)
		if err != nil {
			return 0, err
		}
		return resourceMetricsFetches(page)
	}}, nil
}
