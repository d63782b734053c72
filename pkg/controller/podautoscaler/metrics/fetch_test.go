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

package metrics

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// TestWithTimeoutNamesTheBoundThatEndedIt: a hanging call ends at the
// fetch time-out or at the caller's earlier deadline (a pass's fetch
// budget), whichever comes first, and its error names that bound.
func TestWithTimeoutNamesTheBoundThatEndedIt(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timeout   time.Duration
		callerHas time.Duration // 0: no deadline
		want      string
		// notWant, when set, must not be in the error: the time left to
		// the caller is whatever remains when the fetch starts, which a
		// busy machine makes less than callerHas, so it is not spelt out.
		notWant string
	}{
		{name: "the fetch time-out when the caller has no deadline", timeout: 50 * time.Millisecond, want: "no answer within 50ms"},
		{name: "the fetch time-out when it comes first", timeout: 50 * time.Millisecond, callerHas: time.Minute, want: "no answer within 50ms"},
		{name: "the caller's deadline when it comes first", timeout: time.Minute, callerHas: 50 * time.Millisecond, want: "no answer within ", notWant: "1m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.callerHas > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.callerHas)
				defer cancel()
			}
			_, err := withTimeout(ctx, tc.timeout, func(ctx context.Context) (int, error) {
				<-ctx.Done()
				return 0, ctx.Err()
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error = %v, want one containing %q that is a deadline", err, tc.want)
			}
			if tc.notWant != "" && err != nil && strings.Contains(err.Error(), tc.notWant) {
				t.Errorf("error = %v names %q, the bound that did not end the fetch", err, tc.notWant)
			}
		})
	}
}

// countPanics counts the panics pkg/goroutine recovers, by name.
type countPanics struct {
	mu    sync.Mutex
	names []string
}

func (c *countPanics) ObservePanic(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = append(c.names, name)
}

func (c *countPanics) counted() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.names)
}

// TestWithTimeoutRaisesTheCallsPanicForItsCaller: a call that panics on
// withTimeout's goroutine does not end the process; its panic is counted
// once, as the metrics call's, and raised again on the caller's stack,
// where the pass recovers it as its own.
func TestWithTimeoutRaisesTheCallsPanicForItsCaller(t *testing.T) {
	for _, tc := range []struct {
		name       string
		call       func(context.Context) (int, error)
		wantPanic  bool
		wantCounts []string
	}{
		{name: "a call that answers is answered", call: func(context.Context) (int, error) { return 1, nil }},
		{name: "a call that panics panics its caller, counted once", call: func(context.Context) (int, error) {
			var missing map[string]int
			missing["x"]++
			return 0, nil
		}, wantPanic: true, wantCounts: []string{"metrics call"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			counts := &countPanics{}
			ctx = goroutine.WithObserver(ctx, counts)
			var got int
			err := goroutine.Recover(ctx, "test caller", func() {
				got, _ = withTimeout(ctx, time.Minute, tc.call)
			})
			var pe *goroutine.PanicError
			if panicked := errors.As(err, &pe); panicked != tc.wantPanic {
				t.Fatalf("the caller's panic = %v, want one: %v", err, tc.wantPanic)
			}
			if tc.wantPanic && pe.Name != "metrics call" {
				t.Errorf("the panic is named %q, want the metrics call's", pe.Name)
			}
			if !tc.wantPanic && got != 1 {
				t.Errorf("answer = %d, want 1", got)
			}
			if c := counts.counted(); !slices.Equal(c, tc.wantCounts) {
				t.Errorf("counted panics = %v, want %v", c, tc.wantCounts)
			}
		})
	}
}
