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

type slowLane struct {
	mu    sync.Mutex
	limit int
	busy  int
	slow  map[hpaKey]bool
}

// newSlowLane returns the lane of a controller with workers workers.
func newSlowLane(workers int) *slowLane {
	l := &slowLane{slow: map[hpaKey]bool{}}
	l.resize(workers)
	return l
}

// resize sets the lane to half of workers, at least one.
func (l *slowLane) resize(workers int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limit = max(1, workers/2)
}

// admit reports whether a pass of key may run now, and the function to
// call when it is over. Passes of HPAs not known to be slow always run.
func (l *slowLane) admit(key hpaKey) (bool, func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.slow[key] {
		return true, func() {}
	}
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

// observe records how long a pass of key took against its period.
func (l *slowLane) observe(key hpaKey, took, period time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if took > period/4 {
		l.slow[key] = true
		return
	}
	delete(l.slow, key)
}

func (l *slowLane) forget(key hpaKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.slow, key)
}
