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

package metrics_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

func TestSharedExternal(t *testing.T) {
	queue := labels.SelectorFromSet(labels.Set{"queue": "orders"})
	other := labels.SelectorFromSet(labels.Set{"queue": "billing"})
	type ask struct {
		after     time.Duration // clock step before the ask
		metric    string
		namespace string
		selector  labels.Selector
		group     string
	}
	cases := []struct {
		name        string
		window      time.Duration
		asks        []ask
		wantFetches int
	}{
		{name: "asks within the window share one fetch", window: 15 * time.Second,
			asks:        []ask{{0, "q", "ns", queue, ""}, {5 * time.Second, "q", "ns", queue, ""}, {9 * time.Second, "q", "ns", queue, ""}},
			wantFetches: 1},
		{name: "an ask after the window fetches again", window: 15 * time.Second,
			asks:        []ask{{0, "q", "ns", queue, ""}, {15 * time.Second, "q", "ns", queue, ""}},
			wantFetches: 2},
		{name: "another selector is another metric", window: 15 * time.Second,
			asks:        []ask{{0, "q", "ns", queue, ""}, {0, "q", "ns", other, ""}},
			wantFetches: 2},
		{name: "another namespace is another metric", window: 15 * time.Second,
			asks:        []ask{{0, "q", "a", queue, ""}, {0, "q", "b", queue, ""}},
			wantFetches: 2},
		{name: "another name is another metric", window: 15 * time.Second,
			asks:        []ask{{0, "q", "ns", queue, ""}, {0, "r", "ns", queue, ""}},
			wantFetches: 2},
		{name: "asks from one source share one fetch", window: 15 * time.Second,
			asks:        []ask{{0, "q", "ns", queue, "a.example.com"}, {5 * time.Second, "q", "ns", queue, "a.example.com"}},
			wantFetches: 1},
		{name: "the same metric from another source is another metric", window: 15 * time.Second,
			asks:        []ask{{0, "q", "ns", queue, "a.example.com"}, {0, "q", "ns", queue, "b.example.com"}, {0, "q", "ns", queue, ""}},
			wantFetches: 3},
		{name: "a zero window turns sharing off", window: 0,
			asks:        []ask{{0, "q", "ns", queue, ""}, {0, "q", "ns", queue, ""}},
			wantFetches: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
			fake := metricstest.NewClient().
				SetExternal("q", metricstest.ExternalAnswer{Values: []int64{7000}}).
				SetExternal("r", metricstest.ExternalAnswer{Values: []int64{1000}}).
				SetExternalFrom("a.example.com", "q", metricstest.ExternalAnswer{Values: []int64{2000}}).
				SetExternalFrom("b.example.com", "q", metricstest.ExternalAnswer{Values: []int64{3000}})
			client := metrics.NewSharedExternal(fake, tc.window, clk)
			for _, a := range tc.asks {
				clk.Step(a.after)
				if _, _, err := client.GetExternalMetric(context.Background(), a.metric, a.namespace, a.selector, a.group); err != nil {
					t.Fatalf("GetExternalMetric: %v", err)
				}
			}
			got := fake.Calls(metricstest.External, "q") + fake.Calls(metricstest.External, "r")
			if got != tc.wantFetches {
				t.Errorf("fetches = %d, want %d", got, tc.wantFetches)
			}
		})
	}
}

func TestSharedExternalSharesErrorsButNotCancellations(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	boom := errors.New("adapter down")
	fake := metricstest.NewClient().SetExternal("q", metricstest.ExternalAnswer{Err: boom})
	client := metrics.NewSharedExternal(fake, time.Minute, clk)
	sel := labels.Everything()

	for range 2 {
		if _, _, err := client.GetExternalMetric(context.Background(), "q", "ns", sel, ""); !errors.Is(err, boom) {
			t.Fatalf("err = %v, want the adapter's error", err)
		}
	}
	if n := fake.Calls(metricstest.External, "q"); n != 1 {
		t.Errorf("a failing metric was fetched %d times in one window, want 1", n)
	}

	fake.SetExternal("r", metricstest.ExternalAnswer{Err: context.Canceled})
	for range 2 {
		_, _, _ = client.GetExternalMetric(context.Background(), "r", "ns", sel, "")
	}
	if n := fake.Calls(metricstest.External, "r"); n != 2 {
		t.Errorf("a cancelled fetch was shared: %d fetches, want 2", n)
	}
}

func TestSharedExternalConcurrentAsksWaitForOneFetch(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	release := make(chan struct{})
	fake := metricstest.NewClient().SetExternal("q", metricstest.ExternalAnswer{Values: []int64{1}})
	fake.SetHook(func(ctx context.Context, _ metricstest.Request) error {
		<-release
		return nil
	})
	client := metrics.NewSharedExternal(fake, time.Minute, clk)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			values, _, err := client.GetExternalMetric(context.Background(), "q", "ns", labels.Everything(), "")
			if err != nil || len(values) != 1 || values[0] != 1 {
				t.Errorf("GetExternalMetric = %v, %v", values, err)
			}
		})
	}
	// Whether an asker comes before or after the answer, the fake clock
	// stays inside the window, so every ask is answered by one fetch.
	close(release)
	wg.Wait()
	if n := fake.Calls(metricstest.External, "q"); n != 1 {
		t.Errorf("10 concurrent asks made %d fetches, want 1", n)
	}
}

func TestSharedExternalWaiterGivesUpWithItsContext(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	release := make(chan struct{})
	defer close(release)
	fake := metricstest.NewClient().SetExternal("q", metricstest.ExternalAnswer{Values: []int64{1}})
	fake.SetHook(func(context.Context, metricstest.Request) error { <-release; return nil })
	client := metrics.NewSharedExternal(fake, time.Minute, clk)

	go func() { _, _, _ = client.GetExternalMetric(context.Background(), "q", "ns", labels.Everything(), "") }()
	for fake.Calls(metricstest.External, "q") == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := client.GetExternalMetric(ctx, "q", "ns", labels.Everything(), ""); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the waiter's own cancellation", err)
	}
}

// TestSharedExternalMaxAge pins how HPAs of different sync periods share a
// metric: an ask under WithMaxAge takes no answer older than its age, and
// the fetch it makes serves the asks of longer periods too.
func TestSharedExternalMaxAge(t *testing.T) {
	const window = 15 * time.Second
	type ask struct {
		after  time.Duration // clock step before the ask
		maxAge time.Duration // 0: no WithMaxAge
	}
	cases := []struct {
		name        string
		asks        []ask
		wantFetches int
	}{
		{name: "a 2s asker fetches again once the answer is 2s old", asks: []ask{{0, 2 * time.Second}, {time.Second, 2 * time.Second}, {time.Second, 2 * time.Second}},
			wantFetches: 2},
		{name: "a 15s asker shares the fresher fetch of a 2s asker", asks: []ask{{0, 0}, {3 * time.Second, 2 * time.Second}, {time.Second, 0}, {10 * time.Second, 0}},
			wantFetches: 2},
		{name: "a 15s asker never makes a 2s asker take older data", asks: []ask{{0, 0}, {2 * time.Second, 2 * time.Second}},
			wantFetches: 2},
		{name: "a max age longer than the window changes nothing", asks: []ask{{0, time.Minute}, {14 * time.Second, time.Minute}, {time.Second, time.Minute}},
			wantFetches: 2},
		{name: "a negative max age fetches every time", asks: []ask{{0, 0}, {0, -1}, {0, -1}},
			wantFetches: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
			fake := metricstest.NewClient().SetExternal("q", metricstest.ExternalAnswer{Values: []int64{7000}})
			client := metrics.NewSharedExternal(fake, window, clk)
			for _, a := range tc.asks {
				clk.Step(a.after)
				ctx := context.Background()
				if a.maxAge != 0 {
					ctx = metrics.WithMaxAge(ctx, a.maxAge)
				}
				if _, _, err := client.GetExternalMetric(ctx, "q", "ns", labels.Everything(), ""); err != nil {
					t.Fatalf("GetExternalMetric: %v", err)
				}
			}
			if got := fake.Calls(metricstest.External, "q"); got != tc.wantFetches {
				t.Errorf("fetches = %d, want %d", got, tc.wantFetches)
			}
		})
	}
}
