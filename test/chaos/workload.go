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

package chaos

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Namespace holds the whole workload.
const Namespace = "hpa-chaos"

// Group is what an HPA of the workload is there to check.
type Group string

const (
	// GroupHand HPAs have a Value target met exactly by their metric
	// (served from the adapter's ConfigMap): the usage ratio is 1 whatever
	// the replica count, so the controller has no reason ever to change it,
	// and a person scales them by hand during the run. Any change of their
	// replicas that the person did not make is a scale written over a
	// person's.
	GroupHand Group = "hand"
	// GroupProm HPAs are GroupHand HPAs whose metric is a PromQL query,
	// answered by Prometheus from the exporter.
	GroupProm Group = "prom"
	// GroupZero HPAs have minReplicas 0 and a metric at 0: the controller
	// scales them to zero and marks them ScaledToZero, which must stay.
	GroupZero Group = "zero"
	// GroupFallback HPAs have a fallback on a metric that the adapter
	// fails for a while, again and again (Options.FallbackFault*).
	GroupFallback Group = "fallback"
)

// The metrics of the workload, one series per HPA (label hpa=<name>), so
// that every pass of an HPA is one fetch of its own series at the adapter.
const (
	metricHand     = "chaos_hand"
	metricProm     = "chaos_prom"
	metricZero     = "chaos_zero"
	metricFallback = "chaos_fallback"
	// seriesLabel is the label that tells the series of HPAs apart.
	seriesLabel = "hpa"
	// target is every Value target; the hand and fallback metrics are at it.
	target = 100
	// metricsConfigMapKeyPrefix is the adapter's prefix of external metrics.
	externalKeyPrefix = "external."
)

// workloadName names the Deployment and the HPA of index i.
func workloadName(i int) string { return fmt.Sprintf("c-%04d", i) }

// groupOf assigns HPA i its group: Options.ZeroHPAs, FallbackHPAs and
// PromHPAs first, the rest by hand.
func groupOf(i int, o Options) Group {
	switch {
	case i < o.ZeroHPAs:
		return GroupZero
	case i < o.ZeroHPAs+o.FallbackHPAs:
		return GroupFallback
	case i < o.ZeroHPAs+o.FallbackHPAs+o.PromHPAs:
		return GroupProm
	}
	return GroupHand
}

func metricOf(g Group) string {
	switch g {
	case GroupZero:
		return metricZero
	case GroupFallback:
		return metricFallback
	case GroupProm:
		return metricProm
	}
	return metricHand
}

// scaledByHand says whether the person scales HPAs of g.
func scaledByHand(g Group) bool { return g == GroupHand || g == GroupProm }

// members lists the HPA names of each group.
func members(o Options) map[Group][]string {
	out := map[Group][]string{}
	for i := range o.HPAs {
		g := groupOf(i, o)
		out[g] = append(out[g], workloadName(i))
	}
	return out
}

// seriesYAML is the adapter's ConfigMap value of metric: one series per
// HPA at value, or the fault instead when fault is not empty.
func seriesYAML(names []string, value int, fault string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	var b strings.Builder
	if fault != "" {
		fmt.Fprintf(&b, "fault: %s\n", fault)
	}
	b.WriteString("series:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "- {value: \"%d\", labels: {%s: %s}}\n", value, seriesLabel, n)
	}
	return b.String()
}

// promQuery is the query of the Prometheus metric: the exporter's gauge,
// one sample per HPA.
const promGauge = "chaos_prom_load"

// metricsData is the adapter's ConfigMap data at the start.
func metricsData(o Options) map[string]string {
	m := members(o)
	return map[string]string{
		externalKeyPrefix + metricHand:     seriesYAML(m[GroupHand], target, ""),
		externalKeyPrefix + metricZero:     seriesYAML(m[GroupZero], 0, ""),
		externalKeyPrefix + metricFallback: seriesYAML(m[GroupFallback], target, ""),
		externalKeyPrefix + metricProm:     fmt.Sprintf("query: %s\n", promGauge),
	}
}

// deployment is a Deployment of kwok pods that never run a container.
func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
					TerminationGracePeriodSeconds: ptr.To[int64](0),
				},
			},
		},
	}
}

// hpa is the extended HPA of Deployment name in group g. No behavior
// window holds a recommendation: a scale-down stabilization would undo a
// person's scale-down by itself (as upstream's does), which is not what the
// run looks for.
func hpa(name string, g Group, o Options) *v2.HorizontalPodAutoscaler {
	value := resource.NewQuantity(target, resource.DecimalSI)
	mt := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: value}
	minReplicas := int32(1)
	var fallback *v2.ExternalMetricFallback
	switch g {
	case GroupZero:
		mt = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: value}
		minReplicas = 0
	case GroupFallback:
		fallback = &v2.ExternalMetricFallback{
			FailureDurationSeconds: ptr.To(int64(o.FallbackAfter.Seconds())),
			Replicas:               fallbackReplicas,
		}
	}
	return &v2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: v2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{"chaos.kube-hpa.io/group": string(g)}},
		Spec: v2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MinReplicas:    ptr.To(minReplicas),
			MaxReplicas:    10,
			Metrics: []v2.MetricSpec{{
				Type: autoscalingv2.ExternalMetricSourceType,
				External: &v2.ExternalMetricSource{
					Metric: v2.MetricIdentifier{
						Name:     metricOf(g),
						Selector: &metav1.LabelSelector{MatchLabels: map[string]string{seriesLabel: name}},
					},
					Target:   mt,
					Fallback: fallback,
				},
			}},
			Behavior: &v2.HorizontalPodAutoscalerBehavior{
				ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
				ScaleUp:   &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
			},
		},
	}
}

// fallbackReplicas is what the fallback HPAs propose while their metric
// fails.
const fallbackReplicas = 2

func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// createWorkload creates the ConfigMap, the exporter's series, and every
// Deployment and HPA.
func (r *runner) createWorkload(ctx context.Context) error {
	if _, err := r.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	if err := r.patchMetrics(ctx, metricsData(r.opts)); err != nil {
		return fmt.Errorf("writing the metrics ConfigMap: %w", err)
	}
	for _, name := range members(r.opts)[GroupProm] {
		if err := r.local.Exporter().Set(promGauge, map[string]string{seriesLabel: name}, target); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i := range r.opts.HPAs {
		g.Go(func() error {
			name := workloadName(i)
			if _, err := r.kube.AppsV1().Deployments(Namespace).Create(gctx, deployment(name), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating Deployment %s: %w", name, err)
			}
			u, err := toUnstructured(hpa(name, groupOf(i, r.opts), r.opts))
			if err != nil {
				return err
			}
			if _, err := r.dyn.Resource(v2.GroupVersionResource()).Namespace(Namespace).Create(gctx, u, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating HPA %s: %w", name, err)
			}
			return nil
		})
	}
	return g.Wait()
}
