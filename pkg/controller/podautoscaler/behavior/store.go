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

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Options configures a Store.
type Options struct {
	// Clock tells the time of recommendations and scale events. Nil means
	// the real clock.
	Clock clock.PassiveClock
	// DownscaleStabilizationWindow is the scale-down stabilization window of
	// HPAs without spec.behavior, and of those whose scale-down rules leave
	// stabilizationWindowSeconds unset
	// (--horizontal-pod-autoscaler-downscale-stabilization).
	DownscaleStabilizationWindow time.Duration
}

// Store keeps the recommendation and scale-event histories of every HPA. It
// is safe for concurrent use: the Store's own lock only guards the lookup of
// an HPA's state, and each HPA's state has a lock of its own, so workers
// busy with different HPAs do not wait on each other.
type Store struct {
	clock           clock.PassiveClock
	downscaleWindow time.Duration

	mu     sync.Mutex
	states map[string]*hpaState
}

// hpaState is the history of one HPA.
type hpaState struct {
	mu              sync.Mutex
	recommendations recommendationHistory
	scaleUps        eventHistory
	scaleDowns      eventHistory
}

// NewStore returns an empty Store.
func NewStore(opts Options) *Store {
	c := opts.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	return &Store{
		clock:           c,
		downscaleWindow: opts.DownscaleStabilizationWindow,
		states:          map[string]*hpaState{},
	}
}

// Forget drops everything the Store knows about the HPA with this key; the
// controller calls it when the HPA is deleted.
func (s *Store) Forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.states, key)
}

// Initial is the HPA's first recommendation: the current replica count,
// at the time at (zero: the Store's clock), when the HPA has no history
// yet, else the zero Record. Right after the controller starts, it keeps a
// scale-down waiting for a full stabilization window instead of acting on
// the first, lone sample. Normalize counts it (Input.Initial) before it is
// committed.
func (s *Store) Initial(key string, currentReplicas int32, at time.Time) Record {
	st := s.state(key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.recommendations.empty() {
		return Record{}
	}
	return Record{kind: initialRecord, replicas: currentReplicas, at: s.timeOf(at)}
}

// timeOf is the time of a record made at at: at, or the Store's clock's
// time when at is zero.
func (s *Store) timeOf(at time.Time) time.Time {
	if at.IsZero() {
		return s.clock.Now()
	}
	return at
}

// state returns the state of key, creating it on first use.
func (s *Store) state(key string) *hpaState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[key]
	if !ok {
		st = &hpaState{}
		s.states[key] = st
	}
	return st
}
