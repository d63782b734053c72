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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// patchedNativeSource and patchedNativeStatus are shaped as the native
// types of the k8s.io/api that hack/intree's series patches: the stock fields and
// KEP-5679's, under the same JSON names, without fallback.strategy.
type patchedNativeSource struct {
	Metric   autoscalingv2.MetricIdentifier `json:"metric"`
	Target   autoscalingv2.MetricTarget     `json:"target"`
	Fallback *patchedNativeFallback         `json:"fallback,omitempty"`
}

type patchedNativeFallback struct {
	FailureDurationSeconds *int64 `json:"failureDurationSeconds,omitempty"`
	Replicas               int32  `json:"replicas"`
}

// patchedNativeIdentifier is shaped as a native MetricIdentifier that
// carries KEP-6382's source.
type patchedNativeIdentifier struct {
	Name   string                        `json:"name"`
	Source *patchedNativeSourceReference `json:"source,omitempty"`
}

type patchedNativeSourceReference struct {
	APIGroup string `json:"apiGroup"`
}

type patchedNativeStatus struct {
	Metric           autoscalingv2.MetricIdentifier  `json:"metric"`
	Current          autoscalingv2.MetricValueStatus `json:"current"`
	FallbackStatus   string                          `json:"fallbackStatus,omitempty"`
	FirstFailureTime *metav1.Time                    `json:"firstFailureTime,omitempty"`
}

func TestConvertExternalCarriesWhatBothTypesHave(t *testing.T) {
	metric := autoscalingv2.MetricIdentifier{Name: "queue_depth"}
	extendedMetric := MetricIdentifier{Name: "queue_depth"}
	target := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr.To(resource.MustParse("30"))}
	current := autoscalingv2.MetricValueStatus{Value: ptr.To(resource.MustParse("12"))}
	failedAt := metav1.NewTime(time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC))
	extendedSource := &ExternalMetricSource{Metric: extendedMetric, Target: target,
		Fallback: &ExternalMetricFallback{FailureDurationSeconds: ptr.To[int64](300), Replicas: 4, Strategy: FallbackStrategyStatic}}
	extendedStatus := &ExternalMetricStatus{Metric: extendedMetric, Current: current, FallbackStatus: FallbackStatusFallback, FirstFailureTime: &failedAt}

	cases := []struct {
		name string
		got  func() any
		want any
	}{{
		name: "a stock native type gets the shared fields only",
		got: func() any {
			return convertThroughJSON(extendedSource, autoscalingv2.ExternalMetricSource{Metric: metric, Target: target}, false)
		},
		want: &autoscalingv2.ExternalMetricSource{Metric: metric, Target: target},
	}, {
		name: "a patched native source gets the fallback, without the strategy it does not know",
		got: func() any {
			return convertThroughJSON(extendedSource, patchedNativeSource{Metric: metric, Target: target}, true)
		},
		want: &patchedNativeSource{Metric: metric, Target: target, Fallback: &patchedNativeFallback{FailureDurationSeconds: ptr.To[int64](300), Replicas: 4}},
	}, {
		name: "the fallback of a patched native source reaches the extended type",
		got: func() any {
			in := &patchedNativeSource{Metric: metric, Target: target, Fallback: &patchedNativeFallback{FailureDurationSeconds: ptr.To[int64](600), Replicas: 2}}
			return convertThroughJSON(in, ExternalMetricSource{Metric: extendedMetric, Target: target}, true)
		},
		want: &ExternalMetricSource{Metric: extendedMetric, Target: target, Fallback: &ExternalMetricFallback{FailureDurationSeconds: ptr.To[int64](600), Replicas: 2}},
	}, {
		name: "a patched native status gets the fallback state",
		got: func() any {
			return convertThroughJSON(extendedStatus, patchedNativeStatus{Metric: metric, Current: current}, true)
		},
		want: &patchedNativeStatus{Metric: metric, Current: current, FallbackStatus: "Fallback", FirstFailureTime: &failedAt},
	}, {
		name: "the fallback state of a patched native status reaches the extended type",
		got: func() any {
			in := &patchedNativeStatus{Metric: metric, FallbackStatus: "Fallback", FirstFailureTime: &failedAt}
			return convertThroughJSON(in, ExternalMetricStatus{Metric: extendedMetric}, true)
		},
		want: &ExternalMetricStatus{Metric: extendedMetric, FallbackStatus: FallbackStatusFallback, FirstFailureTime: &failedAt},
	}, {
		name: "a stock native identifier has no source: it is dropped",
		got: func() any {
			return identifierToNative(MetricIdentifier{Name: "queue_depth", Source: &MetricSourceReference{APIGroup: "metrics.example.com"}})
		},
		want: metric,
	}, {
		name: "a patched native identifier keeps the source",
		got: func() any {
			in := MetricIdentifier{Name: "queue_depth", Source: &MetricSourceReference{APIGroup: "metrics.example.com"}}
			return convertThroughJSON(in, patchedNativeIdentifier{Name: "queue_depth"}, true)
		},
		want: &patchedNativeIdentifier{Name: "queue_depth", Source: &patchedNativeSourceReference{APIGroup: "metrics.example.com"}},
	}, {
		name: "the source of a patched native identifier reaches the extended type",
		got: func() any {
			in := patchedNativeIdentifier{Name: "queue_depth", Source: &patchedNativeSourceReference{APIGroup: "metrics.example.com"}}
			return convertThroughJSON(in, MetricIdentifier{Name: "queue_depth"}, true)
		},
		want: &MetricIdentifier{Name: "queue_depth", Source: &MetricSourceReference{APIGroup: "metrics.example.com"}},
	}, {
		name: "a source that cannot be encoded leaves the shared fields",
		got: func() any {
			return convertThroughJSON(func() {}, ExternalMetricSource{Metric: extendedMetric}, true)
		},
		want: &ExternalMetricSource{Metric: extendedMetric},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got()); diff != "" {
				t.Errorf("converted (-want +got):\n%s", diff)
			}
		})
	}
}

// This module builds against a stock k8s.io/api, whose native types have no
// fallback: conversion of native HPAs must then do no JSON work at all.
func TestStockNativeTypesCarryNoFallback(t *testing.T) {
	if nativeSourceCarriesFallback || nativeStatusCarriesFallback || nativeIdentifierCarriesSource {
		t.Errorf("stock k8s.io/api reported to carry an extension: fallback in source %v, in status %v, metric source %v",
			nativeSourceCarriesFallback, nativeStatusCarriesFallback, nativeIdentifierCarriesSource)
	}
	if !hasField[ExternalMetricSource]("Fallback") || !hasField[ExternalMetricStatus]("FallbackStatus") {
		t.Error("hasField misses the extended type's own fields")
	}
}
