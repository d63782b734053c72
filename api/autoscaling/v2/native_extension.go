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
	// nativeIdentifierCarriesSource is true against a k8s.io/api that
	// carries KEP-6382 in native autoscaling/v2.
	nativeIdentifierCarriesSource = hasField[autoscalingv2.MetricIdentifier]("Source")
)

// hasField reports whether struct type T has a field called name.
func hasField[T any](name string) bool {
	_, ok := reflect.TypeFor[T]().FieldByName(name)
	return ok
}

// convertThroughJSON returns shared, the fields both types have, or, when the
// native types carry the extension (carries), src re-read through JSON as
// a T, which keeps every field src and T have in common. src cannot fail to
// encode (metric types hold no channels nor funcs); should it, the shared
// fields are still right.
func convertThroughJSON[T any](src any, shared T, carries bool) *T {
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

// IdentifierFromNative converts a native metric identifier; a native type
// that carries KEP-6382's source keeps it.
func IdentifierFromNative(in autoscalingv2.MetricIdentifier) MetricIdentifier {
	return *convertThroughJSON(in, MetricIdentifier{Name: in.Name, Selector: in.Selector}, nativeIdentifierCarriesSource)
}

// identifierToNative is IdentifierFromNative's inverse: a stock native
// identifier has no source, so the source is dropped.
func identifierToNative(in MetricIdentifier) autoscalingv2.MetricIdentifier {
	return *convertThroughJSON(in, autoscalingv2.MetricIdentifier{Name: in.Name, Selector: in.Selector}, nativeIdentifierCarriesSource)
}

func podsSourceFromNative(in *autoscalingv2.PodsMetricSource) *PodsMetricSource {
	if in == nil {
		return nil
	}
	return &PodsMetricSource{Metric: IdentifierFromNative(in.Metric), Target: in.Target}
}

func podsSourceToNative(in *PodsMetricSource) *autoscalingv2.PodsMetricSource {
	if in == nil {
		return nil
	}
	return &autoscalingv2.PodsMetricSource{Metric: identifierToNative(in.Metric), Target: in.Target}
}

func objectSourceFromNative(in *autoscalingv2.ObjectMetricSource) *ObjectMetricSource {
	if in == nil {
		return nil
	}
	return &ObjectMetricSource{DescribedObject: in.DescribedObject, Target: in.Target, Metric: IdentifierFromNative(in.Metric)}
}

func objectSourceToNative(in *ObjectMetricSource) *autoscalingv2.ObjectMetricSource {
	if in == nil {
		return nil
	}
	return &autoscalingv2.ObjectMetricSource{DescribedObject: in.DescribedObject, Target: in.Target, Metric: identifierToNative(in.Metric)}
}

func podsStatusFromNative(in *autoscalingv2.PodsMetricStatus) *PodsMetricStatus {
	if in == nil {
		return nil
	}
	return &PodsMetricStatus{Metric: IdentifierFromNative(in.Metric), Current: in.Current}
}

func podsStatusToNative(in *PodsMetricStatus) *autoscalingv2.PodsMetricStatus {
	if in == nil {
		return nil
	}
	return &autoscalingv2.PodsMetricStatus{Metric: identifierToNative(in.Metric), Current: in.Current}
}

func objectStatusFromNative(in *autoscalingv2.ObjectMetricStatus) *ObjectMetricStatus {
	if in == nil {
		return nil
	}
	return &ObjectMetricStatus{Metric: IdentifierFromNative(in.Metric), Current: in.Current, DescribedObject: in.DescribedObject}
}

func objectStatusToNative(in *ObjectMetricStatus) *autoscalingv2.ObjectMetricStatus {
	if in == nil {
		return nil
	}
	return &autoscalingv2.ObjectMetricStatus{Metric: identifierToNative(in.Metric), Current: in.Current, DescribedObject: in.DescribedObject}
}

// externalSourceFromNative converts a native External metric source,
// keeping its fallback and source when the native type carries them.
func externalSourceFromNative(in *autoscalingv2.ExternalMetricSource) *ExternalMetricSource {
	return convertThroughJSON(in, ExternalMetricSource{Metric: IdentifierFromNative(in.Metric), Target: in.Target}, nativeSourceCarriesFallback)
}

// externalSourceToNative is externalSourceFromNative's inverse.
func externalSourceToNative(in *ExternalMetricSource) *autoscalingv2.ExternalMetricSource {
	return convertThroughJSON(in, autoscalingv2.ExternalMetricSource{Metric: identifierToNative(in.Metric), Target: in.Target}, nativeSourceCarriesFallback)
}

// externalStatusFromNative converts a native External metric status,
// keeping its fallback state when the native type carries it.
func externalStatusFromNative(in *autoscalingv2.ExternalMetricStatus) *ExternalMetricStatus {
	return convertThroughJSON(in, ExternalMetricStatus{Metric: IdentifierFromNative(in.Metric), Current: in.Current}, nativeStatusCarriesFallback)
}

// externalStatusToNative is externalStatusFromNative's inverse.
func externalStatusToNative(in *ExternalMetricStatus) *autoscalingv2.ExternalMetricStatus {
	return convertThroughJSON(in, autoscalingv2.ExternalMetricStatus{Metric: identifierToNative(in.Metric), Current: in.Current}, nativeStatusCarriesFallback)
}
