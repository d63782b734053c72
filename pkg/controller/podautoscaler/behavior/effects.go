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

// recordKind says which history a Record goes to.
type recordKind uint8

const (
	noRecord recordKind = iota
	initialRecord
	recommendationRecord
	scaleUpRecord
	scaleDownRecord
)

// Record is one write to an HPA's history, computed but not made: Initial,
// Normalize and Scale return it, and Commit writes it once the decision it
// belongs to stands. It carries the time it is recorded at and what it
// prunes from the history, as computed when it was made, so that a Record
// committed later writes exactly what the call that made it would have.
// The zero Record writes nothing.
type Record struct {
	kind     recordKind
	replicas int32
	// change is a scale event's change, as an absolute number of replicas.
	change int64
	at     time.Time
	// staleAt is, for a recommendation, the time at or before which the
	// recommendations are dropped; for a scale event, the time before which
	// the events of its direction turn stale (eventHistory.add).
	staleAt time.Time
}

// IsZero tells whether r writes nothing.
func (r Record) IsZero() bool { return r.kind == noRecord }

// At is the time r is recorded at.
func (r Record) At() time.Time { return r.at }

// Effects are the writes one pass makes to the history of one HPA, in the
// order Commit makes them.
type Effects struct {
	// Initial is the HPA's first recommendation (Initial), made when the
	// pass read the target.
	Initial Record
	// Recommendation is the recommendation Normalize stabilized.
	Recommendation Record
	// Scale is the scale event of the pass's scale write (Scale).
	Scale Record
}

// IsZero tells whether e writes nothing.
func (e Effects) IsZero() bool {
	return e.Initial.IsZero() && e.Recommendation.IsZero() && e.Scale.IsZero()
}

// Commit writes a pass's effects to the history of the HPA with this key.
// An initial recommendation is written only while the HPA has no history,
// as its first.
func (s *Store) Commit(key string, e Effects) {
	if e.IsZero() {
		return
	}
	st := s.state(key)
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, r := range [...]Record{e.Initial, e.Recommendation, e.Scale} {
		st.write(r)
	}
}

// write makes the write r describes.
func (st *hpaState) write(r Record) {
	switch r.kind {
	case initialRecord:
		if st.recommendations.empty() {
			st.recommendations.add(r.replicas, r.at, time.Time{})
		}
	case recommendationRecord:
		st.recommendations.add(r.replicas, r.at, r.staleAt)
	case scaleUpRecord:
		st.scaleUps.add(r.change, r.at, r.staleAt)
	case scaleDownRecord:
		st.scaleDowns.add(r.change, r.at, r.staleAt)
	}
}

// recommendationsWith is the recommendation history as Normalize reads it:
// the stored one, or, for an HPA without one, the first recommendation
// the pass has yet to commit (Input.Initial).
func (st *hpaState) recommendationsWith(initial Record) recommendationHistory {
	if st.recommendations.empty() && initial.kind == initialRecord {
		return recommendationHistory{{replicas: initial.replicas, at: initial.at}}
	}
	return st.recommendations
}

// recommendationAt is the Record of recommendation made at now, which
// drops the recommendations made at or before staleAt.
func recommendationAt(recommendation int32, now, staleAt time.Time) Record {
	return Record{kind: recommendationRecord, replicas: recommendation, at: now, staleAt: staleAt}
}
