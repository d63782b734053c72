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

package fallback

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func queueDepth(seconds int64, replicas int32) *v2.ExternalMetricSource {
	return &v2.ExternalMetricSource{
		Metric:   v2.MetricIdentifier{Name: "queue_depth"},
		Fallback: &v2.ExternalMetricFallback{FailureDurationSeconds: ptr.To(seconds), Replicas: replicas},
	}
}

func stored(status v2.FallbackStatus, firstFailure *time.Time) *v2.ExternalMetricStatus {
	s := &v2.ExternalMetricStatus{Metric: v2.MetricIdentifier{Name: "queue_depth"}, FallbackStatus: status}
	if firstFailure != nil {
		t := metav1.NewTime(*firstFailure)
		s.FirstFailureTime = &t
	}
	return s
}

func at(d time.Duration) *time.Time {
	t := start.Add(d)
	return &t
}

// providerErr is an error as the marked metrics client returns it, wrapped
// the way the calculator and the controller wrap it.
func providerErr() error {
	_, _, err := MarkProviderFailures(metricstest.NewClient().SetExternal("queue_depth",
		metricstest.ExternalAnswer{Err: errors.New("boom")})).GetExternalMetric(
		context.Background(), "queue_depth", "ns", labels.Everything(), "")

	return fmt.Errorf("failed to get queue_depth external metric: %w", err)
}

func TestDecide(t *testing.T) {
	computed := v2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: &v2.ExternalMetricStatus{
		Metric: v2.MetricIdentifier{Name: "queue_depth"}}}
	badSelector := queueDepth(180, 7)
	badSelector.Metric.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "bogus"}}}

	cases := []struct {
		name     string
		src      *v2.ExternalMetricSource
		previous *v2.ExternalMetricStatus
		now      time.Time
		err      error
		want     Outcome
		// wantStatus and wantFirst describe the entry to store.
		wantStatus v2.FallbackStatus
		wantFirst  *time.Time
		wantWake   time.Time
	}{
		{name: "a computed metric is Normal and ends a run of failures", src: queueDepth(180, 7),
			previous: stored(v2.FallbackStatusFallback, at(0)), now: start.Add(time.Hour),
			want: Normal, wantStatus: v2.FallbackStatusNormal},
		{name: "a first provider failure starts the clock now and wakes at the deadline", src: queueDepth(180, 7),
			now: start, err: providerErr(), want: Failing, wantStatus: v2.FallbackStatusNormal, wantFirst: at(0),
			wantWake: start.Add(180 * time.Second)},
		{name: "a later provider failure keeps the first failure's time", src: queueDepth(180, 7),
			previous: stored(v2.FallbackStatusNormal, at(0)), now: start.Add(179 * time.Second), err: providerErr(),
			want: Failing, wantStatus: v2.FallbackStatusNormal, wantFirst: at(0), wantWake: start.Add(180 * time.Second)},
		{name: "a provider failure 1ns before the deadline is not due", src: queueDepth(180, 7),
			previous: stored(v2.FallbackStatusNormal, at(0)), now: start.Add(180*time.Second - 1), err: providerErr(),
			want: Failing, wantStatus: v2.FallbackStatusNormal, wantFirst: at(0), wantWake: start.Add(180 * time.Second)},
		{name: "a provider failure exactly at the deadline is in fallback", src: queueDepth(180, 7),
			previous: stored(v2.FallbackStatusNormal, at(0)), now: start.Add(180 * time.Second), err: providerErr(),
			want: Active, wantStatus: v2.FallbackStatusFallback, wantFirst: at(0)},
		{name: "a longer failureDurationSeconds is not due at the default", src: queueDepth(600, 7),
			previous: stored(v2.FallbackStatusNormal, at(0)), now: start.Add(180 * time.Second), err: providerErr(),
			want: Failing, wantStatus: v2.FallbackStatusNormal, wantFirst: at(0), wantWake: start.Add(600 * time.Second)},
		{name: "a first failure ahead of the clock counts from now", src: queueDepth(180, 7),
			previous: stored(v2.FallbackStatusNormal, at(time.Hour)), now: start, err: providerErr(),
			want: Failing, wantStatus: v2.FallbackStatusNormal, wantFirst: at(0), wantWake: start.Add(180 * time.Second)},
		{name: "an error that is not the provider's ends the run and does not count", src: queueDepth(180, 7),
			previous: stored(v2.FallbackStatusFallback, at(0)), now: start.Add(time.Hour), err: errors.New("no pods"),
			want: NotCounted, wantStatus: v2.FallbackStatusNormal},
		{name: "a selector that does not parse keeps the stored run", src: badSelector,
			previous: stored(v2.FallbackStatusFallback, at(0)), now: start.Add(time.Hour), err: errors.New("bad selector"),
			want: NotCounted, wantStatus: v2.FallbackStatusFallback, wantFirst: at(0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Computed{Status: *computed.DeepCopy(), Err: tc.err}
			d := Decide(tc.previous, tc.src, tc.now, in, Target{Current: 3, StrategyEnabled: true})
			if d.Outcome != tc.want {
				t.Fatalf("outcome = %v, want %v", d.Outcome, tc.want)
			}
			ext := d.Status.External
			if ext == nil || ext.FallbackStatus != tc.wantStatus {
				t.Fatalf("stored entry = %+v, want fallbackStatus %q", ext, tc.wantStatus)
			}
			var first *time.Time
			if ext.FirstFailureTime != nil {
				first = &ext.FirstFailureTime.Time
			}
			if (first == nil) != (tc.wantFirst == nil) || (first != nil && !first.Equal(*tc.wantFirst)) {
				t.Errorf("firstFailureTime = %v, want %v", first, tc.wantFirst)
			}
			if !d.WakeAt.Equal(tc.wantWake) {
				t.Errorf("wake-up = %v, want %v", d.WakeAt, tc.wantWake)
			}
			if tc.want == Active && (d.Replicas != tc.src.Fallback.Replicas || d.Name != "external metric queue_depth fallback") {
				t.Errorf("active proposal = %d %q, want %d named after the metric", d.Replicas, d.Name, tc.src.Fallback.Replicas)
			}
			if tc.want != Active && d.Replicas != 0 {
				t.Errorf("replicas = %d for a metric not in fallback", d.Replicas)
			}
			if !equality.Semantic.DeepEqual(in.Status, computed) {
				t.Errorf("Decide changed its input status to %+v", in.Status)
			}
		})
	}
}

func TestIsProviderFailure(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{name: "an external fetch error through the marked client is the provider's", err: providerErr(), want: true},
		{name: "an unmarked error is not", err: errors.New("no pods"), want: false},
		{name: "no error is not", err: nil, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsProviderFailure(tc.err); got != tc.want {
				t.Errorf("IsProviderFailure(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	cases := []struct {
		name    string
		seconds *int64
		want    time.Duration
	}{
		{name: "unset is the default 180 s", want: 180 * time.Second},
		{name: "a count of seconds converts exactly", seconds: ptr.To[int64](600), want: 600 * time.Second},
		{name: "the largest count a Duration holds converts exactly", seconds: ptr.To(int64(math.MaxInt64 / time.Second)),
			want: time.Duration(math.MaxInt64/time.Second) * time.Second},
		{name: "10000000000 s saturates instead of wrapping negative", seconds: ptr.To[int64](10000000000), want: math.MaxInt64},
		{name: "the largest int64 saturates", seconds: ptr.To[int64](math.MaxInt64), want: math.MaxInt64},
		{name: "a negative count is no wait at all", seconds: ptr.To[int64](-5), want: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Duration(&v2.ExternalMetricFallback{FailureDurationSeconds: tc.seconds, Replicas: 1}); got != tc.want {
				t.Errorf("Duration = %v, want %v", got, tc.want)
			}
		})
	}
}
