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

// highestFrom is highestSince with a recommendation made exactly at since
// counted too: upstream's window for HPAs without spec.behavior includes
// its boundary, while the behavior windows exclude theirs.
func (h recommendationHistory) highestFrom(since time.Time, floor int32) int32 {
	highest := floor
	for _, r := range h {
		if !r.at.Before(since) {
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
	// stale is set once the event is older than every policy period of its
	// own direction; its slot may then take a newer event.
	stale bool
}

// eventHistory holds the recent scale events of one HPA in one direction.
//
// Its bookkeeping is upstream's, because users see it through the policies
// of the other direction, which count these events too: an event turns
// stale only when a newer event of the same direction is recorded and it is
// older than that direction's longest period; the newest event then takes
// the slot of the last stale one. A stale event keeps counting, for a
// longer period of the other direction, until its slot is taken.
type eventHistory []scaleEvent

// add marks the events made before staleBefore as stale and records a new
// one in the last stale slot, or appends it when none is stale.
func (h *eventHistory) add(change int64, now, staleBefore time.Time) {
	slot := -1
	for i := range *h {
		e := &(*h)[i]
		if e.at.Before(staleBefore) {
			e.stale = true
		}
		if e.stale {
			slot = i
		}
	}
	event := scaleEvent{change: change, at: now}
	if slot < 0 {
		*h = append(*h, event)
		return
	}
	(*h)[slot] = event
}

// changeSince sums the changes made after since, stale or not.
func (h eventHistory) changeSince(since time.Time) int64 {
	var total int64
	for _, e := range h {
		if e.at.After(since) {
			total += e.change
		}
	}
	return total
}
