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

package monitor

import (
	"fmt"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor/monitortest"
)

const prefix = "horizontal_pod_autoscaler_controller_"

// upstreamBuckets are the upper bounds of upstream's duration histograms.
func upstreamBuckets() []string {
	return []string{"0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064", "0.128",
		"0.256", "0.512", "1.024", "2.048", "4.096", "8.192", "16.384"}
}

// histogram writes the exposition of one series of an upstream duration
// histogram whose observations are all equal to value, falling in every
// bucket from firstBucket on.
func histogram(name, labels string, count int, value float64, firstBucket int) string {
	return monitortest.Histogram(name, labels, upstreamBuckets(), count, value, firstBucket)
}

func TestReconciliationMetrics(t *testing.T) {
	registry := metrics.NewKubeRegistry()
	m := New(registry)
	m.ObserveReconciliationResult(ActionLabelScaleUp, ErrorLabelNone, 3*time.Millisecond)
	m.ObserveReconciliationResult(ActionLabelScaleUp, ErrorLabelNone, 3*time.Millisecond)
	m.ObserveReconciliationResult(ActionLabelNone, ErrorLabelSpec, 20*time.Second)

	const total, duration = prefix + "reconciliations_total", prefix + "reconciliation_duration_seconds"
	want := `# HELP ` + total + ` [BETA] Number of reconciliations of HPAs by the controller. The label 'action' is 'scale_up', 'scale_down' or 'none'; the label 'error' is 'spec', 'internal' or 'none', and tells the first error met when there were several.
# TYPE ` + total + ` counter
` + total + `{action="none",error="spec"} 1
` + total + `{action="scale_up",error="none"} 2
# HELP ` + duration + ` [BETA] Time in seconds the controller takes to reconcile one HPA. The label 'action' is 'scale_up', 'scale_down' or 'none'; the label 'error' is 'spec', 'internal' or 'none', and tells the first error met when there were several.
# TYPE ` + duration + ` histogram
` + histogram(duration, `action="none",error="spec"`, 1, 20, len(upstreamBuckets())) +
		histogram(duration, `action="scale_up",error="none"`, 2, 0.003, 2)
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), total, duration); err != nil {
		t.Error(err)
	}
}

func TestMetricComputationMetrics(t *testing.T) {
	registry := metrics.NewKubeRegistry()
	m := New(registry)
	m.ObserveMetricComputationResult(ActionLabelScaleDown, ErrorLabelNone, 500*time.Microsecond, autoscalingv2.ResourceMetricSourceType)
	m.ObserveMetricComputationResult(ActionLabelNone, ErrorLabelInternal, time.Second, autoscalingv2.ExternalMetricSourceType)

	const total, duration = prefix + "metric_computation_total", prefix + "metric_computation_duration_seconds"
	want := `# HELP ` + total + ` [BETA] Number of computations of one metric of an HPA. The label 'action' is 'scale_up', 'scale_down' or 'none'; the label 'error' is 'spec', 'internal' or 'none', and tells the first error met when there were several. The label 'metric_type' is the metric's spec.metrics[*].type.
# TYPE ` + total + ` counter
` + total + `{action="none",error="internal",metric_type="External"} 1
` + total + `{action="scale_down",error="none",metric_type="Resource"} 1
# HELP ` + duration + ` [BETA] Time in seconds the controller takes to compute one metric of an HPA. The label 'action' is 'scale_up', 'scale_down' or 'none'; the label 'error' is 'spec', 'internal' or 'none', and tells the first error met when there were several. The label 'metric_type' is the metric's spec.metrics[*].type.
# TYPE ` + duration + ` histogram
` + histogram(duration, `action="none",error="internal",metric_type="External"`, 1, 1, 10) +
		histogram(duration, `action="scale_down",error="none",metric_type="Resource"`, 1, 0.0005, 0)
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), total, duration); err != nil {
		t.Error(err)
	}
}

func TestHPAGauges(t *testing.T) {
	const count, desired = prefix + "num_horizontal_pod_autoscalers", prefix + "desired_replicas"
	header := `# HELP ` + count + ` [ALPHA] Number of HPAs the controller manages.
# TYPE ` + count + ` gauge
`
	desiredHeader := `# HELP ` + desired + ` [ALPHA] Replica count the controller last wanted for each HPA's target.
# TYPE ` + desired + ` gauge
`
	tests := []struct {
		name    string
		observe func(m Monitor)
		want    string
	}{
		{
			name: "SetHPACount sets the count, last value wins",
			observe: func(m Monitor) {
				m.SetHPACount(7)
				m.SetHPACount(3)
			},
			want: header + count + " 3\n",
		},
		{
			name: "ObserveDesiredReplicas keeps one series per HPA, last value wins",
			observe: func(m Monitor) {
				m.ObserveDesiredReplicas(extended("default", "web"), 2)
				m.ObserveDesiredReplicas(extended("default", "web"), 5)
				m.ObserveDesiredReplicas(extended("shop", "web"), 0)
			},
			want: header + count + " 0\n" + desiredHeader +
				desired + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="web",namespace="default"} 5` + "\n" +
				desired + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="web",namespace="shop"} 0` + "\n",
		},
		{
			name: "DeleteHPA drops only that HPA's series",
			observe: func(m Monitor) {
				m.ObserveDesiredReplicas(extended("default", "web"), 5)
				m.ObserveDesiredReplicas(extended("default", "api"), 4)
				m.DeleteHPA(extended("default", "web"))
			},
			want: header + count + " 0\n" + desiredHeader +
				desired + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="api",namespace="default"} 4` + "\n",
		},
		{
			name: "DeleteHPA of an unknown HPA changes nothing",
			observe: func(m Monitor) {
				m.ObserveDesiredReplicas(extended("default", "api"), 4)
				m.DeleteHPA(extended("default", "gone"))
			},
			want: header + count + " 0\n" + desiredHeader +
				desired + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="api",namespace="default"} 4` + "\n",
		},
		{
			name: "a native and an extended HPA of one name keep their own series",
			observe: func(m Monitor) {
				m.ObserveDesiredReplicas(extended("default", "web"), 5)
				m.ObserveDesiredReplicas(native("default", "web"), 3)
			},
			want: header + count + " 0\n" + desiredHeader +
				desired + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="web",namespace="default"} 5` + "\n" +
				desired + `{hpa_api_version="autoscaling/v2",hpa_name="web",namespace="default"} 3` + "\n",
		},
		{
			name: "deleting the native HPA keeps the extended one's series of the same name",
			observe: func(m Monitor) {
				m.ObserveDesiredReplicas(extended("default", "web"), 5)
				m.ObserveDesiredReplicas(native("default", "web"), 3)
				m.DeleteHPA(native("default", "web"))
			},
			want: header + count + " 0\n" + desiredHeader +
				desired + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="web",namespace="default"} 5` + "\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			registry := metrics.NewKubeRegistry()
			m := New(registry)
			tc.observe(m)
			if err := testutil.GatherAndCompare(registry, strings.NewReader(tc.want), count, desired); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSyncPeriodGauge pins the per-HPA period of KEP-6003: one series per
// HPA and API version, in seconds, deleted with the HPA.
func TestSyncPeriodGauge(t *testing.T) {
	const period = prefix + "sync_period_seconds"
	header := `# HELP ` + period + ` [ALPHA] Interval in seconds at which the controller reconciles each HPA: its spec.syncPeriodSeconds, or --horizontal-pod-autoscaler-sync-period when unset. Only with the HPAConfigurableSyncPeriod feature gate.
# TYPE ` + period + ` gauge
`
	tests := []struct {
		name    string
		observe func(m Monitor)
		want    string
	}{
		{
			name:    "no observation, no series",
			observe: func(m Monitor) { m.ObserveDesiredReplicas(extended("default", "web"), 2) },
			want:    "",
		},
		{
			name: "each HPA has its period in seconds, last value wins",
			observe: func(m Monitor) {
				m.ObserveSyncPeriod(extended("default", "web"), 15*time.Second)
				m.ObserveSyncPeriod(extended("default", "web"), 2*time.Second)
				m.ObserveSyncPeriod(native("default", "web"), 15*time.Second)
				m.ObserveSyncPeriod(extended("shop", "api"), time.Hour)
			},
			want: header +
				period + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="api",namespace="shop"} 3600` + "\n" +
				period + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="web",namespace="default"} 2` + "\n" +
				period + `{hpa_api_version="autoscaling/v2",hpa_name="web",namespace="default"} 15` + "\n",
		},
		{
			name: "DeleteHPA drops the period with the desired replicas",
			observe: func(m Monitor) {
				m.ObserveSyncPeriod(extended("default", "web"), 2*time.Second)
				m.ObserveSyncPeriod(extended("default", "api"), 15*time.Second)
				m.DeleteHPA(extended("default", "web"))
			},
			want: header + period + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="api",namespace="default"} 15` + "\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			registry := metrics.NewKubeRegistry()
			m := New(registry)
			tc.observe(m)
			if err := testutil.GatherAndCompare(registry, strings.NewReader(tc.want), period); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestFallbackGauge pins the per-HPA count of External metrics in
// fallback: a series only for HPAs with an External metric that has a fallback, dropped when
// the HPA loses its last one or is deleted.
func TestFallbackGauge(t *testing.T) {
	const fallbacks = prefix + "external_metrics_in_fallback"
	header := `# HELP ` + fallbacks + ` [ALPHA] Number of each HPA's External metrics whose fallback replicas stand in for the metric (status fallbackStatus Fallback, KEP-5679). Only for HPAs with an External metric that has a fallback.
# TYPE ` + fallbacks + ` gauge
`
	tests := []struct {
		name    string
		observe func(m Monitor)
		want    string
	}{
		{
			name:    "an HPA without a fallback has no series",
			observe: func(m Monitor) { m.ObserveFallbacks(extended("default", "web"), false, 0) },
			want:    "",
		},
		{
			name: "an HPA with a fallback has its count, 0 included, last value wins",
			observe: func(m Monitor) {
				m.ObserveFallbacks(extended("default", "web"), true, 2)
				m.ObserveFallbacks(extended("default", "web"), true, 1)
				m.ObserveFallbacks(native("default", "web"), true, 0)
			},
			want: header +
				fallbacks + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="web",namespace="default"} 1` + "\n" +
				fallbacks + `{hpa_api_version="autoscaling/v2",hpa_name="web",namespace="default"} 0` + "\n",
		},
		{
			name: "an HPA whose spec lost its fallbacks loses its series",
			observe: func(m Monitor) {
				m.ObserveFallbacks(extended("default", "web"), true, 1)
				m.ObserveFallbacks(extended("default", "web"), false, 0)
			},
			want: "",
		},
		{
			name: "DeleteHPA drops the count",
			observe: func(m Monitor) {
				m.ObserveFallbacks(extended("default", "web"), true, 1)
				m.ObserveFallbacks(extended("default", "api"), true, 0)
				m.DeleteHPA(extended("default", "web"))
			},
			want: header + fallbacks + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="api",namespace="default"} 0` + "\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			registry := metrics.NewKubeRegistry()
			m := New(registry)
			tc.observe(m)
			if err := testutil.GatherAndCompare(registry, strings.NewReader(tc.want), fallbacks); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestStaleSyncSkips pins kube-controller-manager v1.37's counter of
// passes skipped over a stale HPA cache: one series per kind of HPA.
func TestStaleSyncSkips(t *testing.T) {
	const skips = prefix + "stale_sync_skips_total"
	registry := metrics.NewKubeRegistry()
	m := New(registry)
	m.ObserveStaleSyncSkip("autoscaling", "horizontalpodautoscalers")
	m.ObserveStaleSyncSkip("autoscaling", "horizontalpodautoscalers")
	m.ObserveStaleSyncSkip("autoscaling.kube-hpa.io", "horizontalpodautoscalers")
	want := `# HELP ` + skips + ` [ALPHA] Number of HPA passes skipped because the HPA cache had not yet seen the controller's own last status write (StaleControllerConsistencyHPA).
# TYPE ` + skips + ` counter
` + skips + `{group="autoscaling",resource="horizontalpodautoscalers"} 2
` + skips + `{group="autoscaling.kube-hpa.io",resource="horizontalpodautoscalers"} 1
`
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), skips); err != nil {
		t.Error(err)
	}
}

// TestRecoveredPanics pins the counter of panics that pkg/goroutine
// recovered: one series per kind of work that panicked.
func TestRecoveredPanics(t *testing.T) {
	const panics = prefix + "recovered_panics_total"
	registry := metrics.NewKubeRegistry()
	m := New(registry)
	m.ObservePanic("HPA pass")
	m.ObservePanic("metric evaluation")
	m.ObservePanic("metric evaluation")
	want := `# HELP ` + panics + ` [ALPHA] Number of panics recovered in the controller's goroutines, each ending one HPA's pass or one piece of work instead of the process. The label 'goroutine' names the work that panicked (e.g. 'HPA pass', 'metric evaluation', 'metrics call').
# TYPE ` + panics + ` counter
` + panics + `{goroutine="HPA pass"} 1
` + panics + `{goroutine="metric evaluation"} 2
`
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), panics); err != nil {
		t.Error(err)
	}
}

// TestMonitorsAreIndependent checks that there is no shared state: each
// registry sees only its own Monitor's observations.
func TestMonitorsAreIndependent(t *testing.T) {
	first, second := metrics.NewKubeRegistry(), metrics.NewKubeRegistry()
	New(first).SetHPACount(4)
	New(second).SetHPACount(9)

	for _, tc := range []struct {
		registry metrics.KubeRegistry
		want     string
	}{{first, "4"}, {second, "9"}} {
		const count = prefix + "num_horizontal_pod_autoscalers"
		want := "# HELP " + count + " [ALPHA] Number of HPAs the controller manages.\n# TYPE " + count + " gauge\n" + count + " " + tc.want + "\n"
		if err := testutil.GatherAndCompare(tc.registry, strings.NewReader(want), count); err != nil {
			t.Error(err)
		}
	}
}

func TestNewPanicsWhenRegisteredTwiceOnOneRegistry(t *testing.T) {
	registry := metrics.NewKubeRegistry()
	New(registry)
	defer func() {
		if recover() == nil {
			t.Error("second New on the same registry did not panic")
		}
	}()
	New(registry)
}

// TestMetricNamesAndLabels lists every metric with its type and label names,
// as upstream defines them.
func TestMetricNamesAndLabels(t *testing.T) {
	registry := metrics.NewKubeRegistry()
	m := New(registry)
	m.ObserveReconciliationResult(ActionLabelNone, ErrorLabelNone, time.Millisecond)
	m.ObserveMetricComputationResult(ActionLabelNone, ErrorLabelNone, time.Millisecond, autoscalingv2.PodsMetricSourceType)
	m.SetHPACount(1)
	m.ObserveDesiredReplicas(native("ns", "hpa"), 1)
	m.ObserveSyncPeriod(native("ns", "hpa"), time.Second)
	m.ObserveFallbacks(native("ns", "hpa"), true, 0)
	m.ObserveStaleSyncSkip("autoscaling", "horizontalpodautoscalers")
	m.ObservePanic("HPA pass")

	want := map[string]string{
		prefix + "reconciliations_total":               "COUNTER action,error",
		prefix + "reconciliation_duration_seconds":     "HISTOGRAM action,error",
		prefix + "metric_computation_total":            "COUNTER action,error,metric_type",
		prefix + "metric_computation_duration_seconds": "HISTOGRAM action,error,metric_type",
		prefix + "num_horizontal_pod_autoscalers":      "GAUGE ",
		prefix + "desired_replicas":                    "GAUGE hpa_api_version,hpa_name,namespace",
		prefix + "sync_period_seconds":                 "GAUGE hpa_api_version,hpa_name,namespace",
		prefix + "external_metrics_in_fallback":        "GAUGE hpa_api_version,hpa_name,namespace",
		prefix + "stale_sync_skips_total":              "COUNTER group,resource",
		prefix + "recovered_panics_total":              "COUNTER goroutine",
	}
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range families {
		var labels []string
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		got[f.GetName()] = f.GetType().String() + " " + strings.Join(labels, ",")
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("metrics =\n  %v\nwant\n  %v", got, want)
	}
}

func TestLabelValues(t *testing.T) {
	got := []string{string(ActionLabelScaleUp), string(ActionLabelScaleDown), string(ActionLabelNone),
		string(ErrorLabelSpec), string(ErrorLabelInternal), string(ErrorLabelNone)}
	want := []string{"scale_up", "scale_down", "none", "spec", "internal", "none"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("label values = %v, want %v", got, want)
	}
}

func extended(namespace, name string) HPARef {
	return HPARef{APIVersion: "autoscaling.kube-hpa.io/v2", Namespace: namespace, Name: name}
}

func native(namespace, name string) HPARef {
	return HPARef{APIVersion: "autoscaling/v2", Namespace: namespace, Name: name}
}
