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
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Namespace holds the whole workload; one namespace, so HPAs of a shared
// group really ask for the same (name, selector, namespace).
const Namespace = "hpa-bench"

// The external metrics of the workload. Every target is steadyValue, and
// every metric's value keeps its HPA at the Deployment's replicas
// (Options.PodsPerHPA, one by default): a Value target's metric equals it
// (the ratio to the target times the ready pods), an AverageValue target's
// is that many times it (the value over the target, per pod).
const (
	metricShared  = "bench_shared"
	metricUnique  = "bench_unique"
	metricLatency = "bench_latency"

	// steadyValue is every metric's target, and the value of those with a
	// Value target.
	steadyValue = 100
	// latencyStep is how many replicas above the steady ones a raised
	// latency metric asks for (Options.latencyReplicas).
	latencyStep = 2
	// latencyGroupSize: half of the latency HPAs share their metric in
	// groups of this size, so latency is measured through sharing too.
	latencyGroupSize = 5
)

// podsPerHPA resolves the zero default of Options.PodsPerHPA.
func (o Options) podsPerHPA() int { return max(1, o.PodsPerHPA) }

// latencyReplicas is what a raised latency metric asks for: 3 for one pod
// per HPA, 7 for five.
func (o Options) latencyReplicas() int32 { return int32(o.podsPerHPA() + latencyStep) }

// latencyPods are the pods the latency phases add to the settled
// workload: latencyStep for each latency HPA, twice where a second phase
// raises the metrics again (the slow-tenants modes that fail mid-run).
func (o Options) latencyPods() int {
	phases := 1
	if o.SlowMode.failsMidRun() {
		phases = 2
	}
	return o.LatencyHPAs * latencyStep * phases
}

// workloadPods counts the pods of the settled workload.
func (o Options) workloadPods() int { return o.HPAs * o.podsPerHPA() }

// metricValue is the value the adapter serves for a metric with an
// AverageValue target or a Value target, steady or (a latency metric)
// raised.
func (o Options) metricValue(averageValue, raised bool) int {
	switch {
	case raised:
		return int(o.latencyReplicas()) * steadyValue
	case averageValue:
		return o.podsPerHPA() * steadyValue
	}
	return steadyValue
}

// metricRef is the External metric of one HPA.
type metricRef struct {
	name string
	// label is the selector's single matchLabels entry, key=value.
	labelKey, labelValue string
	// averageValue picks an AverageValue target (replicas from the value
	// alone) over a Value target (which also counts the ready pods).
	averageValue bool
	latency      bool
}

// key is what HPAs sharing one fetch have in common; the namespace is the
// same for all.
func (m metricRef) key() string { return m.name + "/" + m.labelKey + "=" + m.labelValue }

// namespaceOf is the namespace of Deployment and HPA i: Namespace, or with
// Options.Namespaces the k-th of as many blocks of consecutive HPAs, named
// t<k>-hpa-bench. The varying part comes first: kube-apiserver's namespace
// hash (FNV-1a, which sharded replicas divide) puts names that differ only
// at their end in one shard.
func (o Options) namespaceOf(i int) string {
	if o.Namespaces <= 1 {
		return Namespace
	}
	return fmt.Sprintf("t%02d-%s", i*o.Namespaces/max(o.HPAs, 1), Namespace)
}

// namespaces lists the workload's namespaces.
func (o Options) namespaces() []string {
	if o.Namespaces <= 1 {
		return []string{Namespace}
	}
	var out []string
	for i := range o.HPAs {
		if ns := o.namespaceOf(i); len(out) == 0 || out[len(out)-1] != ns {
			out = append(out, ns)
		}
	}
	return out
}

// spreadNamespaces is how many namespaces the workload spreads over, 0
// when it is all in Namespace.
func (o Options) spreadNamespaces() int {
	if o.Namespaces <= 1 {
		return 0
	}
	return len(o.namespaces())
}

// workloadName names the Deployment and the HPA of index i.
func workloadName(i int) string { return fmt.Sprintf("w-%05d", i) }

// metricFor assigns HPA i its metric: the first LatencyHPAs get a latency
// metric (half alone, half in groups), the others alternate between a
// metric shared by SharedGroupSize HPAs and one of their own. With
// Options.DistinctMetrics every HPA has a metric of its own: the latency
// HPAs their trial's metric with a selector of their own, the others
// bench_unique, or bench_slow for the slow HPAs (Options.SlowHPAs). With
// Options.AllShared every HPA but the latency ones shares.
func metricFor(i int, o Options) metricRef {
	if o.DistinctMetrics {
		if i < o.LatencyHPAs {
			return metricRef{name: latencyMetric(i % o.latencyTrials()), labelKey: "lat", labelValue: fmt.Sprintf("u%d", i), averageValue: true, latency: true}
		}
		if slowHPA(i, o) {
			return metricRef{name: metricSlow, labelKey: "hpa", labelValue: workloadName(i)}
		}
		return metricRef{name: metricUnique, labelKey: "hpa", labelValue: workloadName(i)}
	}
	if i < o.LatencyHPAs {
		// Latency HPA i belongs to trial i%trials, as its rank-th member.
		trials := o.latencyTrials()
		trial, rank := i%trials, i/trials
		members := (o.LatencyHPAs - trial + trials - 1) / trials
		alone := (members + 1) / 2
		m := metricRef{name: latencyMetric(trial), labelKey: "lat", averageValue: true, latency: true}
		if rank < alone {
			m.labelValue = fmt.Sprintf("u%d", i)
		} else {
			m.labelValue = fmt.Sprintf("g%d", (rank-alone)/latencyGroupSize)
		}
		return m
	}
	j := i - o.LatencyHPAs
	if o.AllShared {
		return metricRef{name: metricShared, labelKey: "group", labelValue: fmt.Sprintf("g%d", j/o.SharedGroupSize), averageValue: true}
	}
	if j%2 == 0 {
		return metricRef{name: metricShared, labelKey: "group", labelValue: fmt.Sprintf("g%d", j/2/o.SharedGroupSize), averageValue: true}
	}
	return metricRef{name: metricUnique, labelKey: "hpa", labelValue: workloadName(i)}
}

// latencyTrials is how many times within one sync period a latency metric
// changes: the controllers reconcile HPAs in bursts (every HPA they list at
// start is due at the same moment, period after period), so changes at
// spread moments are what give a fair distribution of the delay.
func (o Options) latencyTrials() int { return max(1, min(maxLatencyTrials, o.LatencyHPAs)) }

const maxLatencyTrials = 5

// latencyMetric names the metric that trial changes.
func latencyMetric(trial int) string { return fmt.Sprintf("%s_%d", metricLatency, trial) }

// distinctMetrics counts the (name, selector) pairs of the workload: the
// fewest external metric fetches one pass over every HPA can make.
func distinctMetrics(o Options) int {
	seen := map[string]bool{}
	for i := range o.HPAs {
		seen[metricFor(i, o).key()] = true
	}
	return len(seen)
}

// metricsData is the adapter's ConfigMap data: one series per distinct
// selector of each metric, at its steady value, the metrics named in
// raised at their raised one (Options.metricValue); the slow metric's
// answers held back by Options.SlowDelay in the delay mode
// (slowMetricPrefix).
func metricsData(o Options, raised ...string) map[string]string {
	if o.CPUUtilization {
		return map[string]string{} // the HPAs read metrics-server
	}
	series, averageValue := metricSeries(o)
	data := map[string]string{}
	for name, labels := range series {
		value := o.metricValue(averageValue[name], slices.Contains(raised, name))
		data["external."+name] = seriesYAML(labels, value)
		if name == metricSlow {
			data["external."+name] = slowMetricPrefix(o) + data["external."+name]
		}
	}
	return data
}

// metricSeries are the selectors (label=value) of each external metric
// of the workload, by name, and whether that name's HPAs have an
// AverageValue target: every HPA of one metric name has the same kind.
func metricSeries(o Options) (series map[string]map[string]bool, averageValue map[string]bool) {
	series, averageValue = map[string]map[string]bool{}, map[string]bool{}
	for i := range o.HPAs {
		m := metricFor(i, o)
		if series[m.name] == nil {
			series[m.name] = map[string]bool{}
		}
		series[m.name][m.labelKey+"="+m.labelValue] = true
		averageValue[m.name] = m.averageValue
	}
	return series, averageValue
}

// seriesYAML writes the adapter's series list, sorted so that one
// workload always yields one ConfigMap.
func seriesYAML(labels map[string]bool, value int) string {
	keys := make([]string, 0, len(labels))
	for l := range labels {
		keys = append(keys, l)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("series:\n")
	for _, l := range keys {
		k, v, _ := strings.Cut(l, "=")
		fmt.Fprintf(&b, "- {value: \"%d\", labels: {%s: %s}}\n", value, k, v)
	}
	return b.String()
}

// deployment is the scale target of HPA i: Options.PodsPerHPA kwok pods
// that never run a container.
func deployment(i int, o Options) *appsv1.Deployment {
	d := newDeployment(o.namespaceOf(i), workloadName(i), int32(o.podsPerHPA()))
	if o.CPUUtilization {
		d.Spec.Template.Spec.Containers[0].Resources = cpuRequests()
	}
	return d
}

// newDeployment is a Deployment of kwok pods that never run a container.
func newDeployment(namespace, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
					// kwok deletes pods at once; no grace keeps scale-downs short.
					TerminationGracePeriodSeconds: ptr.To[int64](0),
				},
			},
		},
	}
}

// hpa is native autoscaling/v2 HPA i on Deployment i: minReplicas its
// steady replicas, maxReplicas room for the latency phase (10 up to five
// pods per HPA).
func hpa(i int, o Options) *autoscalingv2.HorizontalPodAutoscaler {
	m := metricFor(i, o)
	target := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: resource.NewQuantity(steadyValue, resource.DecimalSI)}
	if m.averageValue {
		target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: resource.NewQuantity(steadyValue, resource.DecimalSI)}
	}
	name := workloadName(i)
	metric := autoscalingv2.MetricSpec{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &autoscalingv2.ExternalMetricSource{
			Metric: autoscalingv2.MetricIdentifier{
				Name:     m.name,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{m.labelKey: m.labelValue}},
			},
			Target: target,
		},
	}
	if o.CPUUtilization {
		metric = cpuMetric()
	}
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.namespaceOf(i)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MinReplicas:    ptr.To(int32(o.podsPerHPA())),
			MaxReplicas:    int32(max(10, 2*o.podsPerHPA())),
			Metrics:        []autoscalingv2.MetricSpec{metric},
		},
	}
}
