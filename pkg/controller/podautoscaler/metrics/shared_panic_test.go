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
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// waitingContext tells when its asker has come to wait: a SharedExternal
// asker calls Done only to wait for a fetch under way.
type waitingContext struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (w *waitingContext) Done() <-chan struct{} {
	w.once.Do(func() { close(w.waiting) })
	return w.Context.Done()
}

// TestSharedExternalFetchThatPanics: a fetch that panics below a shared
// fetch answers the askers waiting for it with the panic as an error, the
// owner's pass with the panic itself (counted once), and leaves nothing
// under way: the next asker fetches again instead of waiting for good.
func TestSharedExternalFetchThatPanics(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	var observed atomic.Int32
	ctx = goroutine.WithObserver(ctx, observerFunc(func(string) { observed.Add(1) }))
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	inFetch, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	fake := metricstest.NewClient().SetExternal("q", metricstest.ExternalAnswer{Values: []int64{7}})
	fake.SetHook(func(context.Context, metricstest.Request) error {
		if calls.Add(1) == 1 {
			close(inFetch)
			<-release
			var missing map[string]int
			missing["q"]++ // the first fetch hits a bug
		}
		return nil
	})
	client := metrics.NewSharedExternal(fake, time.Minute, clk)
	ask := func(ctx context.Context) ([]int64, error) {
		values, _, err := client.GetExternalMetric(ctx, "q", "ns", labels.Everything(), "")
		return values, err
	}

	ownerDone := make(chan error, 1)
	goroutine.Go(ctx, "owner", func() {
		ownerDone <- goroutine.Recover(ctx, "owner", func() { _, _ = ask(ctx) })
	})
	<-inFetch
	const waiters = 3
	waiterErrs := make(chan error, waiters)
	for range waiters {
		w := &waitingContext{Context: ctx, waiting: make(chan struct{})}
		goroutine.Go(ctx, "waiter", func() {
			_, err := ask(w)
			waiterErrs <- err
		})
		<-w.waiting
	}
	close(release)

	var pe *goroutine.PanicError
	if err := <-ownerDone; !errors.As(err, &pe) {
		t.Errorf("the owner's ask ended with %v, want the fetch's panic", err)
	}
	for range waiters {
		if err := <-waiterErrs; !errors.As(err, &pe) {
			t.Errorf("a waiter got %v, want the fetch's panic as an error", err)
		}
	}
	if n := observed.Load(); n != 1 {
		t.Errorf("%d panics counted, want 1", n)
	}
	values, err := ask(ctx)
	if err != nil || len(values) != 1 || values[0] != 7 {
		t.Errorf("the next ask = %v, %v; want a fresh fetch's answer", values, err)
	}
	if n := fake.Calls(metricstest.External, "q"); n != 2 {
		t.Errorf("%d fetches, want 2 (the one that panicked and a fresh one)", n)
	}
}

type observerFunc func(string)

func (f observerFunc) ObservePanic(name string) { f(name) }
