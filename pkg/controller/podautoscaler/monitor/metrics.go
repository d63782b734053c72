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

import "k8s.io/component-base/metrics"

// subsystem is upstream's metric subsystem of the HPA controller.
const subsystem = "horizontal_pod_autoscaler_controller"

// Duration buckets, as upstream: 15 buckets doubling from 1 ms to about 16 s.
const (
	durationBucketStart  = 0.001
	durationBucketFactor = 2
	durationBucketCount  = 15
)

// collectors are one set of the controller's metrics.
type collectors struct {
	reconciliations           *metrics.CounterVec
	reconciliationDuration    *metrics.HistogramVec
	metricComputations        *metrics.CounterVec
	metricComputationDuration *metrics.HistogramVec
	horizontalPodAutoscalers  *metrics.Gauge
	desiredReplicas           *metrics.GaugeVec
	currentReplicas           *metrics.GaugeVec
	minReplicas               *metrics.GaugeVec
	maxReplicas               *metrics.GaugeVec
	syncPeriod                *metrics.GaugeVec
	fallbacks                 *metrics.GaugeVec
	staleSyncSkips            *metrics.CounterVec
	recoveredPanics           *metrics.CounterVec
}

// newCollectors builds a fresh, unregistered set of the metrics.
func newCollectors() *collectors {
	const (
		actionErrorHelp = " The label 'action' is 'scale_up', 'scale_down' or 'none'; the label 'error' is 'spec', 'internal' or 'none', and tells the first error met when there were several."
		metricTypeHelp  = " The label 'metric_type' is the metric's spec.metrics[*].type."
	)
	buckets := metrics.ExponentialBuckets(durationBucketStart, durationBucketFactor, durationBucketCount)
	return &collectors{
		reconciliations: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "reconciliations_total",
			Help:           "Number of reconciliations of HPAs by the controller." + actionErrorHelp,
			StabilityLevel: metrics.BETA,
		}, []string{"action", "error"}),
		reconciliationDuration: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      subsystem,
			Name:           "reconciliation_duration_seconds",
			Help:           "Time in seconds the controller takes to reconcile one HPA." + actionErrorHelp,
			Buckets:        buckets,
			StabilityLevel: metrics.BETA,
		}, []string{"action", "error"}),
		metricComputations: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "metric_computation_total",
			Help:           "Number of computations of one metric of an HPA." + actionErrorHelp + metricTypeHelp,
			StabilityLevel: metrics.BETA,
		}, []string{"action", "error", "metric_type"}),
		metricComputationDuration: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      subsystem,
			Name:           "metric_computation_duration_seconds",
			Help:           "Time in seconds the controller takes to compute one metric of an HPA." + actionErrorHelp + metricTypeHelp,
			Buckets:        buckets,
			StabilityLevel: metrics.BETA,
		}, []string{"action", "error", "metric_type"}),
		horizontalPodAutoscalers: metrics.NewGauge(&metrics.GaugeOpts{
			Subsystem:      subsystem,
			Name:           "num_horizontal_pod_autoscalers",
			Help:           "Number of HPAs the controller manages.",
			StabilityLevel: metrics.ALPHA,
		}),
		desiredReplicas: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Subsystem:      subsystem,
			Name:           "desired_replicas",
			Help:           "Replica count the controller last wanted for each HPA's target.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"namespace", "hpa_name", "hpa_api_version"}),
		// Ours: kube-state-metrics' current, minimum and maximum replicas
		// of an HPA, which the alerts of kubernetes-mixin read, for the
		// extended kind too.
		currentReplicas: perHPAGauge("current_replicas", "Replica count of each HPA's target when the controller last read it."),
		minReplicas:     perHPAGauge("min_replicas", "Each HPA's spec.minReplicas, as the controller last read it."),
		maxReplicas:     perHPAGauge("max_replicas", "Each HPA's spec.maxReplicas, as the controller last read it."),
		// Ours (KEP-6003 suggests it): upstream has no per-HPA period.
		syncPeriod: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Subsystem:      subsystem,
			Name:           "sync_period_seconds",
			Help:           "Interval in seconds at which the controller reconciles each HPA: its spec.syncPeriodSeconds, or --horizontal-pod-autoscaler-sync-period when unset. Only with the HPAConfigurableSyncPeriod feature gate.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"namespace", "hpa_name", "hpa_api_version"}),
		staleSyncSkips: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "stale_sync_skips_total",
			Help:           "Number of HPA passes skipped because the HPA cache had not yet seen the controller's own last status write (StaleControllerConsistencyHPA).",
			StabilityLevel: metrics.ALPHA,
		}, []string{"group", "resource"}),
		// Ours: upstream lets a panic end kube-controller-manager, so
		// it has nothing to count; we recover them (pkg/goroutine), and
		// a bug that keeps firing must still be seen.
		recoveredPanics: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "recovered_panics_total",
			Help:           "Number of panics recovered in the controller's goroutines, each ending one HPA's pass or one piece of work instead of the process. The label 'goroutine' names the work that panicked (e.g. 'HPA pass', 'metric evaluation', 'metrics call').",
			StabilityLevel: metrics.ALPHA,
		}, []string{"goroutine"}),
		// Ours (KEP-5679 has status and events, no metric): an alert on
		// a fallback that lasts needs a series, and the status is only
		// reachable through kube-state-metrics.
		fallbacks: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Subsystem:      subsystem,
			Name:           "external_metrics_in_fallback",
			Help:           "Number of each HPA's External metrics whose fallback replicas stand in for the metric (status fallbackStatus Fallback, KEP-5679). Only for HPAs with an External metric that has a fallback.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"namespace", "hpa_name", "hpa_api_version"}),
	}
}

// register registers every metric of c on registry; it panics when one is
// registered there already.
func (c *collectors) register(registry Registerer) {
	registry.MustRegister(
		c.reconciliations,
		c.reconciliationDuration,
		c.metricComputations,
		c.metricComputationDuration,
		c.horizontalPodAutoscalers,
		c.desiredReplicas,
		c.currentReplicas,
		c.minReplicas,
		c.maxReplicas,
		c.syncPeriod,
		c.fallbacks,
		c.staleSyncSkips,
		c.recoveredPanics,
	)
}

// perHPAGauge is a gauge of the controller's subsystem with a series per
// HPA, labeled as desired_replicas is.
func perHPAGauge(name, help string) *metrics.GaugeVec {
	return metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      subsystem,
		Name:           name,
		Help:           help,
		StabilityLevel: metrics.ALPHA,
	}, []string{"namespace", "hpa_name", "hpa_api_version"})
}
