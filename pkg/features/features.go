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

// Package features declares the feature gates of kube-hpa. Each gate of an
// upstream HPA feature or proposal keeps the name, stage and default it has
// (or is proposed to have) upstream, so that --feature-gates reads the same
// as on kube-controller-manager; kube-hpa's own extensions have names that
// say so (KubeHPA...).
package features

import (
	"k8s.io/component-base/featuregate"
)

const (
	// HPAExternalMetricFallback lets an External metric propose a fixed
	// replica count once it has failed for a configured duration.
	// KEP-5679: https://kep.k8s.io/5679
	HPAExternalMetricFallback featuregate.Feature = "HPAExternalMetricFallback"

	// HPAExternalMetricFallbackStrategy enables fallback.strategy UseMax and
	// UseMin (a proposed revision of KEP-5679). It has no effect unless
	// HPAExternalMetricFallback is on too. A gate of its own, so that the
	// base KEP can graduate without it.
	HPAExternalMetricFallbackStrategy featuregate.Feature = "HPAExternalMetricFallbackStrategy"

	// HPAConfigurableSyncPeriod enables spec.syncPeriodSeconds: a
	// reconcile interval of the HPA's own instead of
	// --horizontal-pod-autoscaler-sync-period.
	// KEP-6003: https://kep.k8s.io/6003
	HPAConfigurableSyncPeriod featuregate.Feature = "HPAConfigurableSyncPeriod"

	// KubeHPADecisionTrace makes the controller explain its latest scaling
	// decision in status.lastScaleDecision. kube-hpa's own extension, not
	// an upstream proposal: it follows the shape of KEP-6107's last draft,
	// which was closed unmerged, and its name says it is this project's.
	KubeHPADecisionTrace featuregate.Feature = "KubeHPADecisionTrace"

	// HPAStatusDecisionTrace is the name KubeHPADecisionTrace had while
	// KEP-6107 was open. Deprecated: it still turns the trace on, so that a
	// deployment that sets it keeps its trace (and is not refused as an
	// unknown gate), and --feature-gates warns that it is deprecated.
	HPAStatusDecisionTrace featuregate.Feature = "HPAStatusDecisionTrace"

	// HPAMetricSource enables metric.source.apiGroup on Pods, Object and
	// External metrics: the metric is fetched from the APIService of that
	// API group instead of the default one of its type.
	// KEP-6382: https://kep.k8s.io/6382
	HPAMetricSource featuregate.Feature = "HPAMetricSource"

	// HPAScaleToZero allows minReplicas: 0 with Object or External metrics.
	// KEP-2021: https://kep.k8s.io/2021
	HPAScaleToZero featuregate.Feature = "HPAScaleToZero"

	// HPAConfigurableTolerance enables behavior.scaleUp/scaleDown.tolerance.
	// GA in v1.37, locked on.
	// KEP-4951: https://kep.k8s.io/4951
	HPAConfigurableTolerance featuregate.Feature = "HPAConfigurableTolerance"

	// HPAGeneration reconciles an HPA at once when its spec generation
	// changes and reports the generation a status was computed from in
	// status.observedGeneration (kube-controller-manager v1.37).
	HPAGeneration featuregate.Feature = "HPAGeneration"

	// StaleControllerConsistencyHPA skips a pass while the HPA cache has
	// not yet seen the controller's own last status write of that HPA, so
	// that no decision is made from a status older than one already
	// written (kube-controller-manager v1.37; counted in
	// stale_sync_skips_total).
	StaleControllerConsistencyHPA featuregate.Feature = "StaleControllerConsistencyHPA"

	// HPAOptimizedSelectorStore is kube-controller-manager v1.37's gate of
	// the bookkeeping that tells which HPAs select a pod. kube-hpa's index
	// (selectors.go) gives the optimized store's answers either way; the
	// gate chooses how many owners an AmbiguousSelector message names, as
	// upstream's two stores do.
	HPAOptimizedSelectorStore featuregate.Feature = "HPAOptimizedSelectorStore"

	// PodLevelResources makes the HPA take a pod's own requests, where the
	// pod sets them, as the denominator of resource utilization. It is
	// kube-controller-manager's gate of the same name, which also governs
	// the HPA there.
	// KEP-2837: https://kep.k8s.io/2837
	PodLevelResources featuregate.Feature = "PodLevelResources"
)

// Specs returns the gates with their stage and default. It builds a new map
// on every call so that no caller can change another's view.
func Specs() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		HPAExternalMetricFallback:         {Default: false, PreRelease: featuregate.Alpha},
		HPAExternalMetricFallbackStrategy: {Default: false, PreRelease: featuregate.Alpha},
		HPAConfigurableSyncPeriod:         {Default: false, PreRelease: featuregate.Alpha},
		KubeHPADecisionTrace:              {Default: false, PreRelease: featuregate.Alpha},
		HPAStatusDecisionTrace:            {Default: false, PreRelease: featuregate.Deprecated},
		HPAMetricSource:                   {Default: false, PreRelease: featuregate.Alpha},
		HPAScaleToZero:                    {Default: true, PreRelease: featuregate.Beta},
		HPAConfigurableTolerance:          {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		HPAGeneration:                     {Default: true, PreRelease: featuregate.Beta},
		StaleControllerConsistencyHPA:     {Default: true, PreRelease: featuregate.Beta},
		HPAOptimizedSelectorStore:         {Default: true, PreRelease: featuregate.Beta},
		PodLevelResources:                 {Default: true, PreRelease: featuregate.Beta},
	}
}

// NewFeatureGate returns a gate that knows kube-hpa's features, set to their
// defaults. The binary owns one and hands it to whatever reads a gate, so
// that tests can flip gates on their own instance.
func NewFeatureGate() featuregate.MutableVersionedFeatureGate {
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(Specs()); err != nil {
		// Add fails only on a duplicate or conflicting registration, which
		// a fresh gate cannot have.
		panic(err)
	}
	return gate
}

// DecisionTrace reports whether the decision trace is on: by its gate or by
// the deprecated name it had.
func DecisionTrace(gates featuregate.FeatureGate) bool {
	return gates.Enabled(KubeHPADecisionTrace) || gates.Enabled(HPAStatusDecisionTrace)
}
