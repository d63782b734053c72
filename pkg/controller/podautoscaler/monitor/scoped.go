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

package monitor

import (
	"sync"
	"time"
)

// Scoped is a Monitor that remembers which HPAs it has series of, so that
// a sharded replica can drop those of the namespaces it no longer runs. A
// replica keeps a series until told otherwise; once an HPA's shard has
// moved, the series would report the value of its last pass here beside
// the new owner's, and an alert on it (an HPA in fallback) would stay on
// after the HPA recovered elsewhere.
type Scoped struct {
	Monitor
	mu   sync.Mutex
	seen map[HPARef]struct{}
}

// NewScoped wraps m.
func NewScoped(m Monitor) *Scoped {
	return &Scoped{Monitor: m, seen: map[HPARef]struct{}{}}
}

func (s *Scoped) note(hpa HPARef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[hpa] = struct{}{}
}

func (s *Scoped) ObserveDesiredReplicas(hpa HPARef, replicas int32) {
	s.note(hpa)
	s.Monitor.ObserveDesiredReplicas(hpa, replicas)
}

func (s *Scoped) ObserveReplicas(hpa HPARef, r Replicas) {
	s.note(hpa)
	s.Monitor.ObserveReplicas(hpa, r)
}

func (s *Scoped) ObserveSyncPeriod(hpa HPARef, period time.Duration) {
	s.note(hpa)
	s.Monitor.ObserveSyncPeriod(hpa, period)
}

func (s *Scoped) ObserveFallbacks(hpa HPARef, withFallback bool, inFallback int) {
	s.note(hpa)
	s.Monitor.ObserveFallbacks(hpa, withFallback, inFallback)
}

func (s *Scoped) DeleteHPA(hpa HPARef) {
	s.mu.Lock()
	delete(s.seen, hpa)
	s.mu.Unlock()
	s.Monitor.DeleteHPA(hpa)
}

// DropOutside deletes the series of every HPA whose namespace keep
// refuses; keep nil keeps them all.
func (s *Scoped) DropOutside(keep func(namespace string) bool) {
	if keep == nil {
		return
	}
	s.mu.Lock()
	var gone []HPARef
	for hpa := range s.seen {
		if !keep(hpa.Namespace) {
			gone = append(gone, hpa)
			delete(s.seen, hpa)
		}
	}
	s.mu.Unlock()
	for _, hpa := range gone {
		s.Monitor.DeleteHPA(hpa)
	}
}
