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
	"reflect"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// TestValidateStatus pins the status rules: upstream's non-negative replica
// counts, and the values of fallbackStatus.
func TestValidateStatus(t *testing.T) {
	external := func(fs v2.FallbackStatus) v2.MetricStatus {
		return v2.MetricStatus{
			Type: autoscalingv2.ExternalMetricSourceType,
			External: &v2.ExternalMetricStatus{
				Metric:         v2.MetricIdentifier{Name: "queue"},
				FallbackStatus: fs,
			},
		}
	}
	cases := []struct {
		name string
		hpa  *v2.HorizontalPodAutoscaler
		want []wantErr
	}{
		{
			name: "an empty status is valid",
			hpa:  hpa(),
		},
		{
			name: "zero replicas in status is valid",
			hpa:  withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{CurrentReplicas: 0, DesiredReplicas: 0}),
		},
		{
			name: "negative currentReplicas is invalid",
			hpa:  withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{CurrentReplicas: -1, DesiredReplicas: 1}),
			want: []wantErr{invalid("status.currentReplicas")},
		},
		{
			name: "negative desiredReplicas is invalid",
			hpa:  withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{CurrentReplicas: 1, DesiredReplicas: -1}),
			want: []wantErr{invalid("status.desiredReplicas")},
		},
		{
			name: "fallbackStatus Normal, Fallback and unset are valid",
			hpa: withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{CurrentMetrics: []v2.MetricStatus{
				external(v2.FallbackStatusNormal), external(v2.FallbackStatusFallback), external(""),
			}}),
		},
		{
			name: "an unknown fallbackStatus is not supported",
			hpa: withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{CurrentMetrics: []v2.MetricStatus{
				external(v2.FallbackStatusNormal), external("Degraded"),
			}}),
			want: []wantErr{notSupported("status.currentMetrics[1].external.fallbackStatus")},
		},
		{
			name: "a decision as the controller writes it is valid",
			hpa:  withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{LastScaleDecision: decision()}),
		},
		{
			name: "a decision's reasons are not checked, so that new ones may come",
			hpa: withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{LastScaleDecision: func() *v2.HorizontalPodAutoscalerScaleDecision {
				d := decision()
				d.Reason, d.Metrics[0].Reason, d.Constraints = "SomethingNew", "NewMetricReason", []v2.HPAScaleDecisionConstraint{"NewConstraint"}
				return d
			}()}),
		},
		{
			name: "negative counts in a decision are invalid",
			hpa: withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{LastScaleDecision: func() *v2.HorizontalPodAutoscalerScaleDecision {
				d := decision()
				d.CurrentReplicas, d.DesiredReplicas, d.RecommendedReplicas = -1, -2, ptr.To[int32](-3)
				d.Metrics[1].ProposedReplicas = ptr.To[int32](-4)
				return d
			}()}),
			want: []wantErr{
				invalid("status.lastScaleDecision.currentReplicas"), invalid("status.lastScaleDecision.desiredReplicas"),
				invalid("status.lastScaleDecision.recommendedReplicas"), invalid("status.lastScaleDecision.metrics[1].proposedReplicas"),
			},
		},
		{
			name: "a metric named twice or by a negative index is invalid",
			hpa: withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{LastScaleDecision: func() *v2.HorizontalPodAutoscalerScaleDecision {
				d := decision()
				d.Metrics = append(d.Metrics, v2.HPAMetricScaleDecision{MetricIndex: 0, Status: v2.MetricScaleDecisionInvalid},
					v2.HPAMetricScaleDecision{MetricIndex: -1, Status: v2.MetricScaleDecisionInvalid})
				return d
			}()}),
			want: []wantErr{
				{field.ErrorTypeDuplicate, "status.lastScaleDecision.metrics[2].metricIndex"}, invalid("status.lastScaleDecision.metrics[3].metricIndex"),
			},
		},
		{
			name: "the spec is not checked by status validation",
			hpa:  withStatus(hpa(maxReplicas(0), target("", "", "")), v2.HorizontalPodAutoscalerStatus{DesiredReplicas: 2}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.hpa.DeepCopy()
			assertErrors(t, ValidateStatus(tc.hpa), tc.want)
			assertErrors(t, ValidateStatus(tc.hpa), tc.want)
			if !reflect.DeepEqual(tc.hpa, before) {
				t.Errorf("ValidateStatus changed its input")
			}
		})
	}
}

// decision is a lastScaleDecision as the controller writes it: two
// metrics, the first used, scaled up within maxReplicas.
func decision() *v2.HorizontalPodAutoscalerScaleDecision {
	return &v2.HorizontalPodAutoscalerScaleDecision{
		ObservedGeneration: 3, CurrentReplicas: 2, RecommendedReplicas: ptr.To[int32](5), DesiredReplicas: 4,
		Reason: v2.ScaleDecisionPolicyLimited,
		Metrics: []v2.HPAMetricScaleDecision{
			{MetricIndex: 0, ProposedReplicas: ptr.To[int32](5), Status: v2.MetricScaleDecisionUsed, Reason: v2.MetricScaleDecisionComputed},
			{MetricIndex: 1, ProposedReplicas: ptr.To[int32](3), Status: v2.MetricScaleDecisionValid, Reason: v2.MetricScaleDecisionFallbackUseMax},
		},
		Constraints: []v2.HPAScaleDecisionConstraint{v2.ScaleDecisionConstraintScalingPolicy},
	}
}

// withStatus returns h with its status replaced.
func withStatus(h *v2.HorizontalPodAutoscaler, s v2.HorizontalPodAutoscalerStatus) *v2.HorizontalPodAutoscaler {
	h.Status = s
	return h
}

// TestDecisionTraceLeavesSpecValidationAlone: status.lastScaleDecision is
// the controller's, through the status subresource; it never makes a
// create, an update or a stored object invalid, whatever the gates
// (KubeHPADecisionTrace included) and whatever the old object carried.
func TestDecisionTraceLeavesSpecValidationAlone(t *testing.T) {
	traced := func() *v2.HorizontalPodAutoscaler {
		return withStatus(hpa(), v2.HorizontalPodAutoscalerStatus{LastScaleDecision: decision()})
	}
	runValidationCases(t, []validationCase{
		{name: "a create carrying a decision is valid", hpa: traced()},
		{name: "an update keeping a decision is valid", old: traced(), hpa: traced()},
		{name: "an update of an object with a decision to one without is valid", old: traced(), hpa: hpa()},
		{name: "a stored object with a decision is valid", op: stored, hpa: traced()},
	})
}
