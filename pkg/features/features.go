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

	// HPAConfigurableSyncPeriod enables behavior.syncPeriodSeconds: a
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
	// KEP-4951: https://kep.k8s.io/4951
	HPAConfigurableTolerance featuregate.Feature = "HPAConfigurableTolerance"

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
		HPAConfigurableTolerance:          {Default: true, PreRelease: featuregate.Beta},
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
