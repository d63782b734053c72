package podautoscaler

import (
	"time"

	"k8s.io/client-go/util/workqueue"
)

// fixedIntervalLimiter delays every item by the sync period, whatever its
// history: the queue is how each HPA comes back once per period, not a
// back-off for failures (a failing HPA is retried at the same pace).
type fixedIntervalLimiter struct {
	interval time.Duration
}

var _ workqueue.TypedRateLimiter[hpaKey] = fixedIntervalLimiter{}

func (l fixedIntervalLimiter) When(hpaKey) time.Duration { return l.interval }
func (l fixedIntervalLimiter) NumRequeues(hpaKey) int    { return 1 }
func (l fixedIntervalLimiter) Forget(hpaKey)             {}
