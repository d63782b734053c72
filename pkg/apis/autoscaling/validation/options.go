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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/component-base/featuregate"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// options is what the feature gates and the old object allow for one
// validation. Computing it once keeps every rule free of gate lookups.
type options struct {
	minReplicasLowerBound int32
	allowFallback         bool
	allowFallbackStrategy bool
	allowSyncPeriod       bool
	allowMetricSource     bool
	// storedBehaviorSyncPeriod is the deprecated behavior.syncPeriodSeconds
	// of the old object, which an update may keep unchanged.
	storedBehaviorSyncPeriod *int32
	// storedLongFailureDurations are the failureDurationSeconds above the
	// maximum that the old object carried.
	storedLongFailureDurations []int64
	scaleTargetRef             referenceOptions
	describedObject            referenceOptions
}

// referenceOptions relaxes the apiVersion check of a cross-version object
// reference, as upstream does.
type referenceOptions struct {
	allowEmptyAPIGroup     bool
	allowInvalidAPIVersion bool
}

// optionsFor derives the options for newHPA; oldHPA is nil on create.
func optionsFor(newHPA, oldHPA *v2.HorizontalPodAutoscaler, gates featuregate.FeatureGate) options {
	opts := options{
		minReplicasLowerBound:      1,
		allowFallback:              gates.Enabled(features.HPAExternalMetricFallback) || usesFallback(oldHPA),
		allowFallbackStrategy:      gates.Enabled(features.HPAExternalMetricFallbackStrategy) || usesFallbackStrategy(oldHPA),
		allowSyncPeriod:            gates.Enabled(features.HPAConfigurableSyncPeriod) || usesSyncPeriod(oldHPA),
		allowMetricSource:          gates.Enabled(features.HPAMetricSource) || usesMetricSource(oldHPA),
		storedLongFailureDurations: longFailureDurations(oldHPA),
		storedBehaviorSyncPeriod:   behaviorSyncPeriod(oldHPA),
		describedObject:            referenceOptions{allowEmptyAPIGroup: true},
	}
	if gates.Enabled(features.HPAScaleToZero) || hasZeroMinReplicas(oldHPA) {
		opts.minReplicasLowerBound = 0
	}
	switch {
	case oldHPA != nil && sameTargetType(newHPA.Spec.ScaleTargetRef, oldHPA.Spec.ScaleTargetRef):
		// An update that keeps the target's kind and apiVersion must not
		// fail on an apiVersion that older servers accepted.
		opts.scaleTargetRef.allowInvalidAPIVersion = true
	case newHPA.Spec.ScaleTargetRef.Kind == "ReplicationController":
		// The one scalable kind of the core group has an empty group.
		opts.scaleTargetRef.allowEmptyAPIGroup = true
	}
	if hasInvalidDescribedObject(oldHPA, opts.describedObject) {
		opts.describedObject.allowInvalidAPIVersion = true
	}
	return opts
}

func sameTargetType(a, b autoscalingv2.CrossVersionObjectReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind
}

func hasZeroMinReplicas(hpa *v2.HorizontalPodAutoscaler) bool {
	return hpa != nil && hpa.Spec.MinReplicas != nil && *hpa.Spec.MinReplicas == 0
}

func usesFallback(hpa *v2.HorizontalPodAutoscaler) bool {
	return hpa != nil && hpa.Spec.HasFallback()
}

// usesFallbackStrategy reports whether hpa has a fallback whose strategy
// needs HPAExternalMetricFallbackStrategy.
func usesFallbackStrategy(hpa *v2.HorizontalPodAutoscaler) bool {
	if hpa == nil {
		return false
	}
	for _, m := range hpa.Spec.Metrics {
		if m.External == nil || m.External.Fallback == nil {
			continue
		}
		if s := m.External.Fallback.Strategy; s != "" && s != v2.FallbackStrategyStatic {
			return true
		}
	}
	return false
}

func longFailureDurations(hpa *v2.HorizontalPodAutoscaler) []int64 {
	if hpa == nil {
		return nil
	}
	var out []int64
	for _, m := range hpa.Spec.Metrics {
		if m.External == nil || m.External.Fallback == nil || m.External.Fallback.FailureDurationSeconds == nil {
			continue
		}
		if d := *m.External.Fallback.FailureDurationSeconds; d > v2.MaxFailureDurationSeconds {
			out = append(out, d)
		}
	}
	return out
}

// usesSyncPeriod reports whether hpa sets behavior.syncPeriodSeconds,
// whatever its value: an object stored with it stays updatable after the
// gate is turned off.
func usesSyncPeriod(hpa *v2.HorizontalPodAutoscaler) bool {
	return hpa != nil && (hpa.Spec.SyncPeriodSeconds != nil || behaviorSyncPeriod(hpa) != nil)
}

// behaviorSyncPeriod is hpa's deprecated behavior.syncPeriodSeconds, or nil.
func behaviorSyncPeriod(hpa *v2.HorizontalPodAutoscaler) *int32 {
	if hpa == nil || hpa.Spec.Behavior == nil {
		return nil
	}
	return hpa.Spec.Behavior.SyncPeriodSeconds
}

// hasInvalidDescribedObject reports whether the old object already carried
// an Object metric whose describedObject apiVersion is invalid; such
// objects stay updatable.
func hasInvalidDescribedObject(hpa *v2.HorizontalPodAutoscaler, opts referenceOptions) bool {
	if hpa == nil {
		return false
	}
	for _, m := range hpa.Spec.Metrics {
		if m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil {
			if validateAPIVersion(m.Object.DescribedObject.APIVersion, opts) != nil {
				return true
			}
		}
	}
	return false
}
