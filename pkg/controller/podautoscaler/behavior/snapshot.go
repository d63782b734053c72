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

// Recommendation is a recorded recommendation, as History tells it.
type Recommendation struct {
	Replicas int32
	At       time.Time
}

// ScaleEvent is a recorded scale event, as History tells it: a change by
// Change replicas (a number, whatever its direction).
type ScaleEvent struct {
	Change int64
	At     time.Time
}

// History is a copy of what the Store holds for one HPA, oldest first, for
// tests and diagnostics.
type History struct {
	Recommendations []Recommendation
	ScaleUps        []ScaleEvent
	ScaleDowns      []ScaleEvent
}

// History returns a copy of the history of the HPA with this key; an HPA
// the Store does not know has an empty one.
func (s *Store) History(key string) History {
	s.mu.Lock()
	st, ok := s.states[key]
	s.mu.Unlock()
	var h History
	if !ok {
		return h
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, r := range st.recommendations {
		h.Recommendations = append(h.Recommendations, Recommendation{Replicas: r.replicas, At: r.at})
	}
	h.ScaleUps = events(st.scaleUps)
	h.ScaleDowns = events(st.scaleDowns)
	return h
}

func events(h eventHistory) []ScaleEvent {
	var out []ScaleEvent
	for _, e := range h {
		out = append(out, ScaleEvent{Change: e.change, At: e.at})
	}
	return out
}
