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

package calculator

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// TestCPUReadingUnreliable pins the readiness rules for CPU readings at the
// edges of the initialization period and the initial readiness delay.
func TestCPUReadingUnreliable(t *testing.T) {
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	tests := []struct {
		name       string
		start      *metav1.Time
		ready      corev1.ConditionStatus
		transition time.Time
		reading    metrics.PodMetric
		want       bool
	}{
		{
			name:  "initializing ready pod with a reading taken a full window after readiness is reliable",
			start: at(-100 * time.Second), ready: corev1.ConditionTrue, transition: now.Add(-90 * time.Second),
			reading: metrics.PodMetric{Timestamp: now.Add(-30 * time.Second), Window: time.Minute},
			want:    false,
		},
		{
			name:  "initializing ready pod with a reading overlapping its becoming ready is unreliable",
			start: at(-100 * time.Second), ready: corev1.ConditionTrue, transition: now.Add(-90 * time.Second),
			reading: metrics.PodMetric{Timestamp: now.Add(-31 * time.Second), Window: time.Minute},
			want:    true,
		},
		{
			name:  "initializing unready pod is unreliable",
			start: at(-100 * time.Second), ready: corev1.ConditionFalse, transition: now.Add(-99 * time.Second),
			reading: metrics.PodMetric{Timestamp: now, Window: time.Minute},
			want:    true,
		},
		{
			name:  "initialized pod with unknown readiness is reliable",
			start: at(-time.Hour), ready: corev1.ConditionUnknown, transition: now.Add(-time.Hour),
			reading: metrics.PodMetric{Timestamp: now, Window: time.Minute},
			want:    false,
		},
		{
			name:  "initialized pod that turned unready within the readiness delay never was ready",
			start: at(-time.Hour), ready: corev1.ConditionFalse, transition: now.Add(-time.Hour + 9*time.Second),
			reading: metrics.PodMetric{Timestamp: now, Window: time.Minute},
			want:    true,
		},
		{
			name:  "initialized pod that turned unready after the readiness delay was ready once",
			start: at(-time.Hour), ready: corev1.ConditionFalse, transition: now.Add(-time.Hour + 10*time.Second),
			reading: metrics.PodMetric{Timestamp: now, Window: time.Minute},
			want:    false,
		},
		{
			name:  "pod without a start time is unreliable",
			start: nil, ready: corev1.ConditionTrue, transition: now.Add(-time.Hour),
			reading: metrics.PodMetric{Timestamp: now, Window: time.Minute},
			want:    true,
		},
		{
			name:  "pod without a Ready condition is unreliable",
			start: at(-time.Hour), ready: "",
			reading: metrics.PodMetric{Timestamp: now, Window: time.Minute},
			want:    true,
		},
		{
			name:  "initialization ends exactly at the period",
			start: at(-cpuInitPeriod), ready: corev1.ConditionTrue, transition: now.Add(-time.Second),
			reading: metrics.PodMetric{Timestamp: now, Window: time.Minute},
			want:    false,
		},
	}
	calc := newTestCalculator(t, nil, metricstest.NewClient())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := newPod(0)
			pod.Status.StartTime = tc.start
			pod.Status.Conditions = nil
			if tc.ready != "" {
				setReady(pod, tc.ready, tc.transition)
			}
			if got := calc.cpuReadingUnreliable(podrecord.FromPod(pod), tc.reading, now); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
