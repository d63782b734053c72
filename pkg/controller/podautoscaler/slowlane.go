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
	"sync"
	"time"
)

// The slow lane keeps HPAs whose passes are slow (a metrics provider that
// hangs until the fetch budget ends them) from holding every worker. An
// HPA whose last pass took more than a quarter of its period counts as
// slow; at most half of the workers run slow HPAs at once, and a slow HPA
// that finds the lane full waits a moment in the queue instead of taking a
// worker. Healthy HPAs never wait for the lane, so however many HPAs a
// broken provider serves, the others keep their period. The slow ones
// still get passes, fail their fetches like any failing provider, and fall
// back where configured; an HPA leaves the lane with its first fast pass.

// slowLaneRetry is how long a slow HPA that found the lane full waits
// before it asks again.
const slowLaneRetry = time.Second

// slowPass is how long a pass of an HPA of period may take before the HPA
// counts as slow.
func slowPass(period time.Duration) time.Duration { return period / 4 }

// slowLane counts the workers busy with slow HPAs; which HPAs are slow the
// pass log says (pacing.go).
type slowLane struct {
	mu    sync.Mutex
	limit int
	busy  int
}

// newSlowLane returns the lane of a controller with workers workers.
func newSlowLane(workers int) *slowLane {
	l := &slowLane{}
	l.resize(workers)
	return l
}

// resize sets the lane to half of workers, at least one.
func (l *slowLane) resize(workers int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limit = max(1, workers/2)
}

// admit reports whether a pass of an HPA, slow or not, may run now, and
// the function to call when it is over. Passes of HPAs not known to be
// slow always run.
func (l *slowLane) admit(slow bool) (bool, func()) {
	if !slow {
		return true, func() {}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy >= l.limit {
		return false, nil
	}
	l.busy++
	return true, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.busy--
	}
}
