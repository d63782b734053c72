package podautoscaler

import (
	"hash/fnv"
	"time"
)

// Spreading reconciles over the period (Options.SpreadReconciles). Upstream
// queues every HPA one period after its last pass, so the HPAs listed at
// start stay one burst per period: the API server and the metrics provider
// see a spike of every HPA's requests, and a metric change waits up to a
// period behind it. Spread, each HPA is due on a grid of its own, its
// period apart and shifted by a stable offset taken from its key; the grid
// counts from the Unix epoch, so the offset survives restarts and leader
// changes.

// spreadOffset is where within period the HPA of key is due: a hash of its
// key, so that offsets are uniform over the period and stable.
func spreadOffset(key hpaKey, period time.Duration) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key.String()))
	return time.Duration(h.Sum64() % uint64(period))
}

// nextSlot returns the first instant at or after earliest that lies offset
// past a whole multiple of period since the Unix epoch.
func nextSlot(earliest time.Time, period, offset time.Duration) time.Time {
	into := (earliest.UnixNano() - int64(offset)) % int64(period)
	if into < 0 {
		into += int64(period)
	}
	if into == 0 {
		return earliest
	}
	return earliest.Add(period - time.Duration(into))
}

// untilSlot is how long the HPA of key waits from now for its next slot at
// least half a period away: a pass that started on its slot and ended
// within half a period is next due exactly one period after the slot, and
// two passes are never less than half a period apart.
func untilSlot(key hpaKey, period time.Duration, now time.Time) time.Duration {
	return nextSlot(now.Add(period/2), period, spreadOffset(key, period)).Sub(now)
}
