package validation

import (
	"reflect"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// TestValidateStatus pins the status rules: upstream's non-negative replica
// counts, and the values of fallbackStatus.
func TestValidateStatus(t *testing.T) {
	external := func(fs v2.FallbackStatus) v2.MetricStatus {
		return v2.MetricStatus{
			Type: autoscalingv2.ExternalMetricSourceType,
			External: &v2.ExternalMetricStatus{
				Metric:         autoscalingv2.MetricIdentifier{Name: "queue"},
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

// withStatus returns h with its status replaced.
func withStatus(h *v2.HorizontalPodAutoscaler, s v2.HorizontalPodAutoscalerStatus) *v2.HorizontalPodAutoscaler {
	h.Status = s
	return h
}
