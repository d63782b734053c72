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
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// ErrFenced is what Check returns once the work of a run may no longer
// write: its shards may be another replica's.
var ErrFenced = errors.New("the shards of this work are fenced")

// fence is the write permit of one run. Cancelling the run's context is not
// enough: a pass already past its context check (or one that retries a
// conflicted write) would still write, and a process stopped and resumed
// past its deadline runs its goroutines before the timer that cancels them.
// So every write asks the fence, which compares the clock with the
// deadline itself.
type fence struct {
	clock clock.PassiveClock
	// deadline is the renewal deadline in Unix nanoseconds; 0 until set.
	deadline atomic.Int64
	// closed is set once the run was asked to stop: a dropped shard's
	// writes end before its release is written.
	closed atomic.Bool
}

func (f *fence) set(deadline time.Time) { f.deadline.Store(deadline.UnixNano()) }

func (f *fence) close() { f.closed.Store(true) }

func (f *fence) check() error {
	if f.closed.Load() {
		return fmt.Errorf("%w: the run was stopped", ErrFenced)
	}
	deadline := f.deadline.Load()
	if deadline == 0 {
		return fmt.Errorf("%w: no renewal yet", ErrFenced)
	}
	if now := f.clock.Now(); now.UnixNano() >= deadline {
		return fmt.Errorf("%w: renewal deadline %s passed", ErrFenced, time.Unix(0, deadline).UTC().Format(time.RFC3339Nano))
	}
	return nil
}

type fenceKey struct{}

// Check returns nil while the work whose context is ctx may still write,
// and an error wrapping ErrFenced once it may not. A context that does not
// come from a Manager's Work is never fenced. Callers check right before
// each write, so that only the time of one request separates the check
// from the write.
func Check(ctx context.Context) error {
	f, ok := ctx.Value(fenceKey{}).(*fence)
	if !ok {
		return nil
	}
	return f.check()
}
