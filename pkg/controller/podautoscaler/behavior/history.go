package behavior

import "time"

// timedRecommendation is a recommendation (before stabilization) and when
// it was made.
type timedRecommendation struct {
	replicas int32
	at       time.Time
}

// recommendationHistory holds the recent recommendations of one HPA.
type recommendationHistory []timedRecommendation

func (h recommendationHistory) empty() bool { return len(h) == 0 }

// add drops the recommendations made at or before staleAt, which no window
// can count any more, and appends a new one.
func (h *recommendationHistory) add(replicas int32, now, staleAt time.Time) {
	kept := (*h)[:0]
	for _, r := range *h {
		if r.at.After(staleAt) {
			kept = append(kept, r)
		}
	}
	*h = append(kept, timedRecommendation{replicas: replicas, at: now})
}

// highestSince returns the highest recommendation made after since, or
// floor when none is higher.
func (h recommendationHistory) highestSince(since time.Time, floor int32) int32 {
	highest := floor
	for _, r := range h {
		if r.at.After(since) {
			highest = max(highest, r.replicas)
		}
	}
	return highest
}

// lowestSince returns the lowest recommendation made after since, or
// ceiling when none is lower.
func (h recommendationHistory) lowestSince(since time.Time, ceiling int32) int32 {
	lowest := ceiling
	for _, r := range h {
		if r.at.After(since) {
			lowest = min(lowest, r.replicas)
		}
	}
	return lowest
}

// scaleEvent is a change of the replica count made by the controller, as an
// absolute number of replicas.
type scaleEvent struct {
	change int64
	at     time.Time
}

// eventHistory holds the recent scale events of one HPA in one direction.
type eventHistory []scaleEvent

// add drops the events made at or before staleAt, which no policy period
// can count any more, and appends a new one.
func (h *eventHistory) add(change int64, now, staleAt time.Time) {
	kept := (*h)[:0]
	for _, e := range *h {
		if e.at.After(staleAt) {
			kept = append(kept, e)
		}
	}
	*h = append(kept, scaleEvent{change: change, at: now})
}

// changeSince sums the changes made after since.
func (h eventHistory) changeSince(since time.Time) int64 {
	var total int64
	for _, e := range h {
		if e.at.After(since) {
			total += e.change
		}
	}
	return total
}
