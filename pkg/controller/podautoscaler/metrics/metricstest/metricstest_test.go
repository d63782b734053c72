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

package metricstest

import (
	"context"
	"errors"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
)

var (
	t0       = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	errFetch = errors.New("fetch failed")
	ref      = &autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}
)

// call invokes one method of the client and reports its answer in one
// shape: the value, the time and the error.
type call func(ctx context.Context, c *Client) (any, time.Time, error)

func resourceCall(ctx context.Context, c *Client) (any, time.Time, error) {
	return c.GetResourceMetric(ctx, corev1.ResourceCPU, "ns", labels.Everything(), "app")
}

func podsCall(ctx context.Context, c *Client) (any, time.Time, error) {
	return c.GetRawMetric(ctx, "qps", "ns", labels.Everything(), labels.Everything(), "")
}

func objectCall(ctx context.Context, c *Client) (any, time.Time, error) {
	return c.GetObjectMetric(ctx, "qps", "ns", ref, labels.Everything(), "")
}

func externalCall(ctx context.Context, c *Client) (any, time.Time, error) {
	return c.GetExternalMetric(ctx, "queue", "ns", labels.Everything(), "")
}

func TestClient(t *testing.T) {
	readings := metrics.PodMetricsInfo{"web-0": {Value: 500}}
	tests := []struct {
		name      string
		setup     func(*Client)
		call      call
		want      any
		wantErrIs error
	}{
		{name: "an unset resource metric wraps ErrNoMetrics", call: resourceCall, wantErrIs: metrics.ErrNoMetrics},
		{name: "an unset pods metric wraps ErrNoMetrics", call: podsCall, wantErrIs: metrics.ErrNoMetrics},
		{name: "an unset object metric wraps ErrNoMetrics", call: objectCall, wantErrIs: metrics.ErrNoMetrics},
		{name: "an unset external metric wraps ErrNoMetrics", call: externalCall, wantErrIs: metrics.ErrNoMetrics},
		{
			name:  "a resource answer is returned",
			setup: func(c *Client) { c.SetResource(corev1.ResourceCPU, PodsAnswer{Metrics: readings, Timestamp: t0}) },
			call:  resourceCall, want: readings,
		},
		{
			name:  "a pods answer is returned",
			setup: func(c *Client) { c.SetPods("qps", PodsAnswer{Metrics: readings, Timestamp: t0}) },
			call:  podsCall, want: readings,
		},
		{
			name:  "an object answer is returned",
			setup: func(c *Client) { c.SetObject("qps", ObjectAnswer{Value: 42, Timestamp: t0}) },
			call:  objectCall, want: int64(42),
		},
		{
			name:  "an external answer is returned",
			setup: func(c *Client) { c.SetExternal("queue", ExternalAnswer{Values: []int64{1, 2}, Timestamp: t0}) },
			call:  externalCall, want: []int64{1, 2},
		},
		{
			name:  "an empty external answer wraps ErrNoMetrics, as the real client",
			setup: func(c *Client) { c.SetExternal("queue", ExternalAnswer{Timestamp: t0}) },
			call:  externalCall, wantErrIs: metrics.ErrNoMetrics,
		},
		{
			name:  "a resource error is returned",
			setup: func(c *Client) { c.SetResource(corev1.ResourceCPU, PodsAnswer{Err: errFetch}) },
			call:  resourceCall, wantErrIs: errFetch,
		},
		{
			name:  "an object error is returned",
			setup: func(c *Client) { c.SetObject("qps", ObjectAnswer{Err: errFetch}) },
			call:  objectCall, wantErrIs: errFetch,
		},
		{
			name:  "an external error is returned",
			setup: func(c *Client) { c.SetExternal("queue", ExternalAnswer{Err: errFetch}) },
			call:  externalCall, wantErrIs: errFetch,
		},
		{
			name: "a hook's error overrides the answer",
			setup: func(c *Client) {
				c.SetObject("qps", ObjectAnswer{Value: 42}).SetHook(func(context.Context, Request) error { return errFetch })
			},
			call: objectCall, wantErrIs: errFetch,
		},
		{
			name: "a hook's error overrides a pods answer",
			setup: func(c *Client) {
				c.SetPods("qps", PodsAnswer{Metrics: readings}).SetHook(func(context.Context, Request) error { return errFetch })
			},
			call: podsCall, wantErrIs: errFetch,
		},
		{
			name: "a hook's error overrides a resource answer",
			setup: func(c *Client) {
				c.SetResource(corev1.ResourceCPU, PodsAnswer{Metrics: readings}).SetHook(func(context.Context, Request) error { return errFetch })
			},
			call: resourceCall, wantErrIs: errFetch,
		},
		{
			name: "a hook's error overrides an external answer",
			setup: func(c *Client) {
				c.SetExternal("queue", ExternalAnswer{Values: []int64{1}}).SetHook(func(context.Context, Request) error { return errFetch })
			},
			call: externalCall, wantErrIs: errFetch,
		},
		{
			name: "a hook that lets the call through keeps the answer",
			setup: func(c *Client) {
				c.SetObject("qps", ObjectAnswer{Value: 42, Timestamp: t0}).SetHook(func(context.Context, Request) error { return nil })
			},
			call: objectCall, want: int64(42),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewClient()
			if tc.setup != nil {
				tc.setup(c)
			}
			got, ts, err := tc.call(t.Context(), c)
			if tc.wantErrIs != nil {
				if !errors.Is(err, tc.wantErrIs) {
					t.Fatalf("got error %v, want one wrapping %v", err, tc.wantErrIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ts.Equal(t0) {
				t.Errorf("got time %v, want %v", ts, t0)
			}
			if !equalAnswer(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func equalAnswer(a, b any) bool {
	switch a := a.(type) {
	case metrics.PodMetricsInfo:
		b := b.(metrics.PodMetricsInfo)
		if len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if b[k] != v {
				return false
			}
		}
		return true
	case []int64:
		b := b.([]int64)
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func TestAnswersAreCopies(t *testing.T) {
	c := NewClient().
		SetPods("qps", PodsAnswer{Metrics: metrics.PodMetricsInfo{"web-0": {Value: 1}}}).
		SetExternal("queue", ExternalAnswer{Values: []int64{1}})
	m, _, _ := c.GetRawMetric(t.Context(), "qps", "ns", labels.Everything(), labels.Everything(), "")
	delete(m, "web-0")
	v, _, _ := c.GetExternalMetric(t.Context(), "queue", "ns", labels.Everything(), "")
	v[0] = 99
	m, _, _ = c.GetRawMetric(t.Context(), "qps", "ns", labels.Everything(), labels.Everything(), "")
	v, _, _ = c.GetExternalMetric(t.Context(), "queue", "ns", labels.Everything(), "")
	if len(m) != 1 || v[0] != 1 {
		t.Errorf("a caller's change leaked into the next answer: %v, %v", m, v)
	}
}

func TestCallsAreRecorded(t *testing.T) {
	c := NewClient()
	ctx := t.Context()
	_, _, _ = c.GetExternalMetric(ctx, "queue", "ns", labels.Everything(), "")
	_, _, _ = c.GetExternalMetric(ctx, "queue", "ns", labels.Everything(), "")
	_, _, _ = c.GetObjectMetric(ctx, "queue", "ns", ref, labels.Everything(), "")
	if got := c.Calls(External, "queue"); got != 2 {
		t.Errorf("got %d external calls, want 2", got)
	}
	if got := c.Calls(Object, "queue"); got != 1 {
		t.Errorf("got %d object calls, want 1", got)
	}
	reqs := c.Requests()
	if len(reqs) != 3 || reqs[2].ObjectRef != ref || reqs[0].Namespace != "ns" {
		t.Errorf("got requests %+v", reqs)
	}
	c.ResetRequests()
	if got := len(c.Requests()); got != 0 {
		t.Errorf("got %d requests after a reset, want 0", got)
	}
}

func TestBlockUntilDone(t *testing.T) {
	c := NewClient().SetExternal("queue", ExternalAnswer{Values: []int64{1}}).SetHook(BlockUntilDone)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, _, err := c.GetExternalMetric(ctx, "queue", "ns", labels.Everything(), "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the context's deadline error", err)
	}
}
