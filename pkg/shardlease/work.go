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

package shardlease

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// running is one run of the Work on one shard.
type running struct {
	shard int
	// canceled is set once this package has asked the run to stop, which
	// tells a fenced or released run from Work that ended on its own.
	canceled atomic.Bool
	// stopping is set when the Manager stops the run itself (interrupt):
	// it waits for the run then, and needs no wake-up when it returns.
	stopping atomic.Bool
	cancel   context.CancelFunc
	// done is closed when the Work has returned; err is its result.
	done  chan struct{}
	err   error
	fence clock.Timer
	// permit is what the Work's writes ask (Check); it closes with the
	// fence and with stop, before the shard can be released.
	permit *fence
}

// start runs work on shard in a goroutine of its own, allowed to write
// until deadline unless fenceAt moves it. ended is signalled (without
// blocking) once the Work has returned by itself or by its fence timer, so
// that the Manager's loop wakes up for a fenced or failed run without
// watching each one.
func start(ctx context.Context, clk clock.PassiveClock, work Work, shard int, deadline time.Time, ended chan<- struct{}) *running {
	permit := &fence{clock: clk}
	permit.set(deadline)
	ctx, cancel := context.WithCancel(context.WithValue(ctx, fenceKey{}, permit))
	r := &running{shard: shard, done: make(chan struct{}), permit: permit}
	r.cancel = func() {
		r.canceled.Store(true)
		permit.close()
		cancel()
	}
	goroutine.Go(ctx, "shard work", func() {
		defer func() {
			if r.stopping.Load() {
				return
			}
			select {
			case ended <- struct{}{}:
			default:
			}
		}()
		defer close(r.done)
		// A panic is the Work's error: the manager ends as for any Work
		// that returns, with the panic as its reason.
		if panicked := goroutine.Recover(ctx, "shard work", func() { r.err = work(ctx, shard) }); panicked != nil {
			r.err = panicked
		}
	})
	return r
}

// fenceAt cancels the run at deadline unless fenceAt is called again before
// with a later one. The timer, not the round loop, enforces the deadline, so
// a round stuck on a slow API server cannot delay it.
func (r *running) fenceAt(clk clock.WithDelayedExecution, deadline time.Time) {
	if r.fence != nil {
		r.fence.Stop()
	}
	r.permit.set(deadline)
	r.fence = clk.AfterFunc(deadline.Sub(clk.Now()), r.cancel)
}

// interrupt cancels the run without waiting for it; wait waits.
func (r *running) interrupt() {
	r.stopping.Store(true)
	if r.fence != nil {
		r.fence.Stop()
	}
	r.cancel()
}

func (r *running) wait() { <-r.done }

// ended reports whether the Work has returned.
func (r *running) ended() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// failed reports whether the Work has returned without being asked to.
func (r *running) failed() bool {
	return r.ended() && !r.canceled.Load()
}

// stopAll cancels every run of rs at once, then waits for all of them: the
// runs stop in parallel, so a release waits for the slowest, not the sum.
func stopAll(rs []*running) {
	for _, r := range rs {
		r.interrupt()
	}
	for _, r := range rs {
		r.wait()
	}
}
