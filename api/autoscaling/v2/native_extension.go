package v2

import (
	"encoding/json"
	"reflect"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// kube-hpa built against a k8s.io/api that carries KEP-5679 in native
// autoscaling/v2 (the staging module of hack/intree's patch series, as a
// distribution that ships the series would vendor it) has the fallback
// fields in the native types too, with the same JSON names as the extended
// kind, and conversion must keep them, or --manage-native-hpas would never
// see a fallback nor persist its state. Against a stock k8s.io/api they have
// no such field, and conversion skips this path so that native HPAs cost no
// more than before.
//
// Field names are checked, not JSON, because the native types are fixed at
// build time: one check per process is enough.
var (
	nativeSourceCarriesFallback = hasField[autoscalingv2.ExternalMetricSource]("Fallback")
	nativeStatusCarriesFallback = hasField[autoscalingv2.ExternalMetricStatus]("FallbackStatus")
)

// hasField reports whether struct type T has a field called name.
func hasField[T any](name string) bool {
	_, ok := reflect.TypeFor[T]().FieldByName(name)
	return ok
}

// convertExternal returns shared, the fields both types have, or, when the
// native types carry the extension (carries), src re-read through JSON as
// a T, which keeps every field src and T have in common. src cannot fail to
// encode (metric types hold no channels nor funcs); should it, the shared
// fields are still right.
func convertExternal[T any](src any, shared T, carries bool) *T {
	if !carries {
		return &shared
	}
	data, err := json.Marshal(src)
	if err != nil {
		return &shared
	}
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		return &shared
	}
	return &out
}

// externalSourceFromNative converts a native External metric source,
// keeping its fallback when the native type carries one.
func externalSourceFromNative(in *autoscalingv2.ExternalMetricSource) *ExternalMetricSource {
	return convertExternal(in, ExternalMetricSource{Metric: in.Metric, Target: in.Target}, nativeSourceCarriesFallback)
}

// externalSourceToNative is externalSourceFromNative's inverse.
func externalSourceToNative(in *ExternalMetricSource) *autoscalingv2.ExternalMetricSource {
	return convertExternal(in, autoscalingv2.ExternalMetricSource{Metric: in.Metric, Target: in.Target}, nativeSourceCarriesFallback)
}

// externalStatusFromNative converts a native External metric status,
// keeping its fallback state when the native type carries it.
func externalStatusFromNative(in *autoscalingv2.ExternalMetricStatus) *ExternalMetricStatus {
	return convertExternal(in, ExternalMetricStatus{Metric: in.Metric, Current: in.Current}, nativeStatusCarriesFallback)
}

// externalStatusToNative is externalStatusFromNative's inverse.
func externalStatusToNative(in *ExternalMetricStatus) *autoscalingv2.ExternalMetricStatus {
	return convertExternal(in, autoscalingv2.ExternalMetricStatus{Metric: in.Metric, Current: in.Current}, nativeStatusCarriesFallback)
}
