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
	"fmt"
	"time"

	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// withTimeout runs call with a context that ends after timeout, and stops
// waiting for it once that context is done. Cancelling the context is not
// enough on its own: the custom and external metrics clients of
// k8s.io/metrics take no context, so a call into a hanging adapter would
// otherwise hold the caller until the HTTP time-out, if any.
//
// The error of a call that ran out of time names the bound that ended it:
// timeout, or the shorter time left to ctx (a pass's fetch budget).
func withTimeout[T any](ctx context.Context, timeout time.Duration, call func(context.Context) (T, error)) (T, error) {
	if deadline, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(deadline).Round(time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	type outcome struct {
		value T
		err   error
		// panicked is the call's panic, raised again on the caller's
		// stack so that it fails the pass, not the process.
		panicked error
	}
	// Buffered, so that a call that ends after we stopped waiting can still
	// hand over its outcome and let its goroutine exit.
	done := make(chan outcome, 1)
	goroutine.Go(ctx, "metrics call", func() {
		var o outcome
		o.panicked = goroutine.Recover(ctx, "metrics call", func() { o.value, o.err = call(ctx) })
		done <- o
	})

	select {
	case o := <-done:
		if o.panicked != nil {
			panic(o.panicked)
		}
		return o.value, o.err
	case <-ctx.Done():
		var zero T
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, fmt.Errorf("no answer within %s: %w", timeout, ctx.Err())
		}
		return zero, ctx.Err()
	}
}
