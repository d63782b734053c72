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
	"reflect"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"
)

func upstreamScaleUp() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](0),
		SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

func upstreamScaleDown() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

func cpu80() MetricSpec {
	return MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
		},
	}
}

func queue(fallback *ExternalMetricFallback) MetricSpec {
	q := resource.MustParse("30")
	return MetricSpec{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &ExternalMetricSource{
			Metric:   MetricIdentifier{Name: "queue"},
			Target:   autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
			Fallback: fallback,
		},
	}
}

func TestSetDefaults(t *testing.T) {
	target := autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"}
	tolerance := resource.MustParse("50m")
	cases := []struct {
		name string
		in   HorizontalPodAutoscalerSpec
		want HorizontalPodAutoscalerSpec
	}{
		{
			name: "minReplicas unset becomes 1 and no metrics becomes CPU at 80%",
			in:   HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MaxReplicas: 5},
			want: HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{cpu80()}},
		},
		{
			name: "an explicitly empty metrics list becomes CPU at 80%",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](2), MaxReplicas: 5, Metrics: []MetricSpec{}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](2), MaxReplicas: 5, Metrics: []MetricSpec{cpu80()}},
		},
		{
			name: "minReplicas 0 is kept",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](0), MaxReplicas: 5, Metrics: []MetricSpec{queue(nil)}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](0), MaxReplicas: 5, Metrics: []MetricSpec{queue(nil)}},
		},
		{
			name: "set metrics are kept and no behavior stays nil",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](3), MaxReplicas: 5, Metrics: []MetricSpec{queue(nil)}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](3), MaxReplicas: 5, Metrics: []MetricSpec{queue(nil)}},
		},
		{
			name: "fallback failureDurationSeconds unset becomes 180",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{cpu80(), queue(&ExternalMetricFallback{Replicas: 3})}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{
				cpu80(), queue(&ExternalMetricFallback{Replicas: 3, FailureDurationSeconds: ptr.To[int64](180), Strategy: FallbackStrategyStatic}),
			}},
		},
		{
			name: "fallback failureDurationSeconds set is kept, even when invalid",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{queue(&ExternalMetricFallback{Replicas: 3, FailureDurationSeconds: ptr.To[int64](10)})}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{queue(&ExternalMetricFallback{Replicas: 3, FailureDurationSeconds: ptr.To[int64](10), Strategy: FallbackStrategyStatic})}},
		},
		{
			name: "fallback strategy unset becomes Static",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{queue(&ExternalMetricFallback{Replicas: 3, FailureDurationSeconds: ptr.To[int64](180)})}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{queue(&ExternalMetricFallback{Replicas: 3, FailureDurationSeconds: ptr.To[int64](180), Strategy: FallbackStrategyStatic})}},
		},
		{
			name: "fallback strategy set is kept",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{queue(&ExternalMetricFallback{Replicas: 3, Strategy: FallbackStrategyUseMax})}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{queue(&ExternalMetricFallback{Replicas: 3, FailureDurationSeconds: ptr.To[int64](180), Strategy: FallbackStrategyUseMax})}},
		},
		{
			name: "an empty behavior gets upstream's rules in both directions",
			in:   HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{cpu80()}, Behavior: &HorizontalPodAutoscalerBehavior{}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{cpu80()}, Behavior: &HorizontalPodAutoscalerBehavior{
				ScaleUp: upstreamScaleUp(), ScaleDown: upstreamScaleDown(),
			}},
		},
		{
			name: "partial rules keep their set fields and take the rest from the defaults",
			in: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{cpu80()}, Behavior: &HorizontalPodAutoscalerBehavior{
				ScaleUp:   &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60)},
				ScaleDown: &autoscalingv2.HPAScalingRules{Tolerance: &tolerance},
			}},
			want: HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 5, Metrics: []MetricSpec{cpu80()}, Behavior: &HorizontalPodAutoscalerBehavior{
				ScaleUp: func() *autoscalingv2.HPAScalingRules {
					r := upstreamScaleUp()
					r.StabilizationWindowSeconds = ptr.To[int32](60)
					return r
				}(),
				ScaleDown: func() *autoscalingv2.HPAScalingRules {
					r := upstreamScaleDown()
					r.Tolerance = &tolerance
					return r
				}(),
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hpa := &HorizontalPodAutoscaler{Spec: tc.in}
			SetDefaults(hpa)
			if !reflect.DeepEqual(hpa.Spec, tc.want) {
				t.Errorf("SetDefaults:\n got: %+v\nwant: %+v", hpa.Spec, tc.want)
			}
			// Defaulting is idempotent.
			again := hpa.DeepCopy()
			SetDefaults(again)
			if !reflect.DeepEqual(again, hpa) {
				t.Errorf("SetDefaults is not idempotent:\n got: %+v\nwant: %+v", again.Spec, hpa.Spec)
			}
		})
	}
}

func TestScalingRulesDefaults(t *testing.T) {
	percent := autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: 10, PeriodSeconds: 60}
	tolerance := resource.MustParse("100m")
	cases := []struct {
		name     string
		generate func(*autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules
		in       *autoscalingv2.HPAScalingRules
		want     *autoscalingv2.HPAScalingRules
	}{
		{
			name:     "scale-up with nil rules: no stabilization, 4 pods or 100% per 15s, the larger",
			generate: ScaleUpRules,
			want:     upstreamScaleUp(),
		},
		{
			name:     "scale-down with nil rules: stabilization left to the controller flag, 100% per 15s",
			generate: ScaleDownRules,
			want:     upstreamScaleDown(),
		},
		{
			name:     "scale-up keeps a set stabilization window",
			generate: ScaleUpRules,
			in:       &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](120)},
			want: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](120), SelectPolicy: upstreamScaleUp().SelectPolicy, Policies: upstreamScaleUp().Policies,
			},
		},
		{
			name:     "scale-down keeps a set stabilization window of 0",
			generate: ScaleDownRules,
			in:       &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
			want: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](0), SelectPolicy: upstreamScaleDown().SelectPolicy, Policies: upstreamScaleDown().Policies,
			},
		},
		{
			name:     "scale-up keeps set policies and selectPolicy",
			generate: ScaleUpRules,
			in: &autoscalingv2.HPAScalingRules{
				SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect), Policies: []autoscalingv2.HPAScalingPolicy{percent},
			},
			want: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](0), SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect),
				Policies: []autoscalingv2.HPAScalingPolicy{percent},
			},
		},
		{
			name:     "scale-down keeps Disabled and a tolerance",
			generate: ScaleDownRules,
			in:       &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.DisabledPolicySelect), Tolerance: &tolerance},
			want: &autoscalingv2.HPAScalingRules{
				SelectPolicy: ptr.To(autoscalingv2.DisabledPolicySelect), Policies: upstreamScaleDown().Policies, Tolerance: &tolerance,
			},
		},
		{
			name:     "an explicitly empty policy list is kept, for validation to refuse",
			generate: ScaleUpRules,
			in:       &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{}},
			want: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](0), SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
				Policies: []autoscalingv2.HPAScalingPolicy{},
			},
		},
		{
			name:     "fully set rules are returned unchanged",
			generate: ScaleDownRules,
			in: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](30), SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect),
				Policies: []autoscalingv2.HPAScalingPolicy{percent}, Tolerance: &tolerance,
			},
			want: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](30), SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect),
				Policies: []autoscalingv2.HPAScalingPolicy{percent}, Tolerance: &tolerance,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.DeepCopy()
			got := tc.generate(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if !reflect.DeepEqual(tc.in, before) {
				t.Errorf("the argument was changed: got %+v, want %+v", tc.in, before)
			}
		})
	}
}

// TestScalingRulesDoNotAliasTheirArgument checks that ScaleUpRules and
// ScaleDownRules neither change their argument nor return memory shared
// with it, for any rules, and that each call returns fresh defaults.
func TestScalingRulesDoNotAliasTheirArgument(t *testing.T) {
	f := filler(randfill.NewWithSeed(4951))
	for name, generate := range map[string]func(*autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules{
		"ScaleUpRules":   ScaleUpRules,
		"ScaleDownRules": ScaleDownRules,
	} {
		t.Run(name, func(t *testing.T) {
			for i := 0; i < 200; i++ {
				var in *autoscalingv2.HPAScalingRules
				f.Fill(&in)
				before := in.DeepCopy()
				out := generate(in)
				if !reflect.DeepEqual(in, before) {
					t.Fatalf("the argument was changed: got %+v, want %+v", in, before)
				}
				scribble(reflect.ValueOf(out))
				if !reflect.DeepEqual(in, before) {
					t.Fatalf("the result shares memory with the argument")
				}
			}
			// The defaults themselves are not shared between calls.
			first := generate(nil)
			scribble(reflect.ValueOf(first))
			if got, want := generate(nil), generate(nil); !reflect.DeepEqual(got, want) || reflect.DeepEqual(first, want) {
				t.Fatalf("defaults are shared between calls")
			}
		})
	}
}

// TestDefaultsAreValidUpstreamValues guards the constants against a typo:
// the defaulted fallback duration is the minimum accepted one.
func TestDefaultsAreValidUpstreamValues(t *testing.T) {
	if DefaultFailureDurationSeconds < MinFailureDurationSeconds {
		t.Errorf("default failureDurationSeconds %d is below the minimum %d", DefaultFailureDurationSeconds, MinFailureDurationSeconds)
	}
	if DefaultMinReplicas != 1 || DefaultCPUUtilization != 80 || DefaultFailureDurationSeconds != 180 {
		t.Errorf("defaults changed: minReplicas %d, CPU %d%%, failureDurationSeconds %d",
			DefaultMinReplicas, DefaultCPUUtilization, DefaultFailureDurationSeconds)
	}
}
