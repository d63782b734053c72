// Package features declares the feature gates of kube-hpa. Each gate keeps
// the name, stage and default it has (or is proposed to have) upstream, so
// that --feature-gates reads the same as on kube-controller-manager.
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

	// HPAStatusDecisionTrace makes the controller explain its latest
	// scaling decision in status.lastScaleDecision.
	// KEP-6107: https://kep.k8s.io/6107
	HPAStatusDecisionTrace featuregate.Feature = "HPAStatusDecisionTrace"

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
		HPAStatusDecisionTrace:            {Default: false, PreRelease: featuregate.Alpha},
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
