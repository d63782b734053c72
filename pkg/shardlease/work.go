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
	"slices"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// running is one run of the Work on a fixed set of shards.
type running struct {
	owned []int
	// canceled is set once this package has asked the run to stop, which
	// tells a fenced or replaced run from Work that ended on its own.
	canceled atomic.Bool
	cancel   context.CancelFunc
	// done is closed when the Work has returned; err is its result.
	done  chan struct{}
	err   error
	fence clock.Timer
	// permit is what the Work's writes ask (Check); it closes with the
	// fence and with stop, before the shards can be released.
	permit *fence
}

// start runs work on owned in a goroutine of its own, allowed to write
// until deadline unless fenceAt moves it; kept are the shards it inherits
// from the previous run without a gap (Kept).
func start(ctx context.Context, clk clock.PassiveClock, work Work, owned, kept []int, deadline time.Time) *running {
	permit := &fence{clock: clk}
	permit.set(deadline)
	ctx = context.WithValue(ctx, keptKey{}, slices.Clone(kept))
	ctx, cancel := context.WithCancel(context.WithValue(ctx, fenceKey{}, permit))
	r := &running{owned: slices.Clone(owned), done: make(chan struct{}), permit: permit}
	r.cancel = func() {
		r.canceled.Store(true)
		permit.close()
		cancel()
	}
	goroutine.Go(ctx, "shard work", func() {
		defer close(r.done)
		// A panic is the Work's error: the manager ends as for any Work
		// that returns, with the panic as its reason.
		if panicked := goroutine.Recover(ctx, "shard work", func() { r.err = work(ctx, r.owned) }); panicked != nil {
			r.err = panicked
		}
	})
	return r
}

type keptKey struct{}

// Kept returns the shards of the run of ctx that this replica held without
// a gap since its previous run, which it stopped for a change of its shard
// set while that run could still write: no other replica can have decided
// for their HPAs in between, so what a Work kept in memory about them (the
// behavior histories) still holds. Every other shard's HPAs may have been
// another replica's meanwhile. Nil outside a Manager's Work.
func Kept(ctx context.Context) []int {
	kept, _ := ctx.Value(keptKey{}).([]int)
	return slices.Clone(kept)
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

// stop cancels the run and waits for the Work to return.
func (r *running) stop() {
	if r.fence != nil {
		r.fence.Stop()
	}
	r.cancel()
	<-r.done
}

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
