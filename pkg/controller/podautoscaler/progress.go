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

package podautoscaler

import (
	"fmt"
	"sync/atomic"
	"time"
)

// progress is when a worker last finished an item, so that a liveness
// probe can tell workers that are stuck (a deadlock, a call that never
// returns) from a controller with nothing due.
type progress struct {
	last atomic.Int64 // Unix nanoseconds; 0 before Run's workers start
}

func (p *progress) mark(now time.Time) { p.last.Store(now.UnixNano()) }

// Stalled reports why the workers look stuck, or nil: HPAs exist, some are
// due and waiting in the queue, and no pass has finished for limit (since
// the workers started, before the first). A controller whose HPAs are all
// waiting for their periods is not stalled, however long they are.
func (c *Controller) Stalled(limit time.Duration) error {
	last := c.progress.last.Load()
	if last == 0 || c.selectors.len() == 0 || c.queue.Len() == 0 {
		return nil
	}
	if idle := c.opts.Clock.Since(time.Unix(0, last)); idle > limit {
		return fmt.Errorf("no HPA pass finished for %v while %d HPAs are due", idle.Round(time.Second), c.queue.Len())
	}
	return nil
}
