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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/component-base/metrics"
)

// Monitor is what the controller reports about its work.
type Monitor interface {
	// ObserveReconciliationResult counts one reconciliation of an HPA and
	// its duration.
	ObserveReconciliationResult(action ActionLabel, err ErrorLabel, duration time.Duration)
	// ObserveMetricComputationResult counts one computation of one metric of
	// an HPA and its duration.
	ObserveMetricComputationResult(action ActionLabel, err ErrorLabel, duration time.Duration, metricType autoscalingv2.MetricSourceType)
	// SetHPACount sets the number of HPAs the controller manages.
	SetHPACount(n int)
	// ObserveDesiredReplicas records the replica count the controller wants
	// for an HPA's target.
	ObserveDesiredReplicas(hpa HPARef, replicas int32)
	// ObserveReplicas records an HPA's target's current replicas and its
	// spec's bounds, the series the alerts of kubernetes-mixin read from
	// kube-state-metrics (KubeHpaMaxedOut, KubeHpaReplicasMismatch), which
	// does not know the extended kind.
	ObserveReplicas(hpa HPARef, r Replicas)
	// ObserveSyncPeriod records the interval at which the controller
	// reconciles an HPA: its spec.syncPeriodSeconds or the global
	// period (KEP-6003). The controller calls it only with the
	// HPAConfigurableSyncPeriod gate on.
	ObserveSyncPeriod(hpa HPARef, period time.Duration)
	// ObserveFallbacks records how many of an HPA's External metrics are
	// in fallback; withFallback says whether any of them has a fallback
	// at all (without one, the HPA has no series: at 10,000 HPAs a series
	// that can only read 0 costs megabytes).
	ObserveFallbacks(hpa HPARef, withFallback bool, inFallback int)
	// ObserveStaleSyncSkip counts a pass skipped because the cache of HPAs
	// of group and resource was older than the controller's own write.
	ObserveStaleSyncSkip(group, resource string)
	// DeleteHPA drops the series of an HPA that was deleted.
	DeleteHPA(hpa HPARef)
	// ObservePanic counts a panic recovered in the work named goroutine
	// (a pkg/goroutine Observer).
	ObservePanic(goroutine string)
}

// HPARef identifies an HPA in the series about it. A native autoscaling/v2
// HPA and an extended one may share a namespace and a name, so the API
// version is part of the key: each keeps its own series, and deleting one
// leaves the other's.
type HPARef struct {
	// APIVersion is the group/version of the HPA's kind.
	APIVersion string
	Namespace  string
	Name       string
}

// Replicas are an HPA's target's current replica count and its spec's
// bounds.
type Replicas struct {
	Current, Min, Max int32
}

// prometheusMonitor is a Monitor on component-base metrics.
type prometheusMonitor struct {
	c *collectors
}

var _ Monitor = (*prometheusMonitor)(nil)

// Registerer is where a Monitor's metrics are registered: a
// metrics.KubeRegistry, or RegistererFunc(legacyregistry.MustRegister) in
// kube-controller-manager, which serves the legacy registry.
type Registerer interface {
	MustRegister(...metrics.Registerable)
}

// RegistererFunc makes a registration function a Registerer.
type RegistererFunc func(...metrics.Registerable)

// MustRegister calls f.
func (f RegistererFunc) MustRegister(cs ...metrics.Registerable) { f(cs...) }

// New returns a Monitor whose metrics are registered on registry, typically
// the registry the binary serves on /metrics. It panics if registry already
// holds these metrics, as registering twice is a programming error.
func New(registry Registerer) Monitor {
	c := newCollectors()
	c.register(registry)
	return &prometheusMonitor{c: c}
}

func (m *prometheusMonitor) ObserveReconciliationResult(action ActionLabel, err ErrorLabel, duration time.Duration) {
	m.c.reconciliations.WithLabelValues(string(action), string(err)).Inc()
	m.c.reconciliationDuration.WithLabelValues(string(action), string(err)).Observe(duration.Seconds())
}

func (m *prometheusMonitor) ObserveMetricComputationResult(action ActionLabel, err ErrorLabel, duration time.Duration, metricType autoscalingv2.MetricSourceType) {
	m.c.metricComputations.WithLabelValues(string(action), string(err), string(metricType)).Inc()
	m.c.metricComputationDuration.WithLabelValues(string(action), string(err), string(metricType)).Observe(duration.Seconds())
}

func (m *prometheusMonitor) SetHPACount(n int) {
	m.c.horizontalPodAutoscalers.Set(float64(n))
}

func (m *prometheusMonitor) ObserveDesiredReplicas(hpa HPARef, replicas int32) {
	m.c.desiredReplicas.WithLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion).Set(float64(replicas))
}

func (m *prometheusMonitor) ObserveReplicas(hpa HPARef, r Replicas) {
	m.c.currentReplicas.WithLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion).Set(float64(r.Current))
	m.c.minReplicas.WithLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion).Set(float64(r.Min))
	m.c.maxReplicas.WithLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion).Set(float64(r.Max))
}

func (m *prometheusMonitor) ObserveSyncPeriod(hpa HPARef, period time.Duration) {
	m.c.syncPeriod.WithLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion).Set(period.Seconds())
}

func (m *prometheusMonitor) ObserveFallbacks(hpa HPARef, withFallback bool, inFallback int) {
	if !withFallback {
		m.c.fallbacks.DeleteLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion)
		return
	}
	m.c.fallbacks.WithLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion).Set(float64(inFallback))
}

func (m *prometheusMonitor) ObserveStaleSyncSkip(group, resource string) {
	m.c.staleSyncSkips.WithLabelValues(group, resource).Inc()
}

func (m *prometheusMonitor) ObservePanic(goroutine string) {
	m.c.recoveredPanics.WithLabelValues(goroutine).Inc()
}

func (m *prometheusMonitor) DeleteHPA(hpa HPARef) {
	m.c.desiredReplicas.DeleteLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion)
	m.c.currentReplicas.DeleteLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion)
	m.c.minReplicas.DeleteLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion)
	m.c.maxReplicas.DeleteLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion)
	m.c.syncPeriod.DeleteLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion)
	m.c.fallbacks.DeleteLabelValues(hpa.Namespace, hpa.Name, hpa.APIVersion)
}
