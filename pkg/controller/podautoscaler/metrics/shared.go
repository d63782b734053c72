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

package metrics

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// SharedExternal is a Client whose external metric fetches are shared:
// HPAs asking for the same metric (name, namespace and selector) within the
// window get the answer of one fetch, and concurrent asks wait for the one
// under way. With thousands of HPAs on a few queue-depth metrics, this turns
// one adapter call per HPA per period into one per metric per window.
//
// The price is staleness: an answer may be up to one window old, or less
// for an ask that says so (WithMaxAge). Other metric kinds are per pod or
// per object and are passed through.
type SharedExternal struct {
	Client
	window time.Duration
	clock  clock.PassiveClock

	mu        sync.Mutex
	fetches   map[string]*sharedFetch
	sweepSize int
}

// sharedFetch is one fetch of one external metric: under way until done is
// closed, then its answer.
type sharedFetch struct {
	done      chan struct{}
	fetchedAt time.Time
	values    []int64
	timestamp time.Time
	err       error
}

// NewSharedExternal wraps client. A window of zero or less turns sharing
// off: every call goes to client.
func NewSharedExternal(client Client, window time.Duration, clk clock.PassiveClock) Client {
	if window <= 0 {
		return client
	}
	return &SharedExternal{Client: client, window: window, clock: clk, fetches: map[string]*sharedFetch{}, sweepSize: 64}
}

// GetExternalMetric answers from a fetch made within the window (or the
// shorter age ctx allows), waits for one under way, or fetches.
func (s *SharedExternal) GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error) {
	// The group is part of the metric: the same name served by two
	// sources is two metrics, never one fetch.
	key := apiGroup + "\x00" + namespace + "\x00" + metricName + "\x00" + selector.String()
	fetch, owner := s.claim(key, maxAge(ctx, s.window))
	if owner {
		s.fetch(ctx, key, fetch, metricName, namespace, selector, apiGroup)
	} else {
		select {
		case <-fetch.done:
		case <-ctx.Done():
			return nil, time.Time{}, ctx.Err()
		}
	}
	return slices.Clone(fetch.values), fetch.timestamp, fetch.err
}

// claim returns the fetch to use for key, at most age old, and whether the
// caller must make it. A fetch under way is always fresh enough. A new
// fetch replaces the old one for every asker, so those that accept older
// answers get the fresher one.
func (s *SharedExternal) claim(key string, age time.Duration) (*sharedFetch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if f, ok := s.fetches[key]; ok && (!isDone(f) || now.Sub(f.fetchedAt) < age) {
		return f, false
	}
	s.sweep(now)
	f := &sharedFetch{done: make(chan struct{})}
	s.fetches[key] = f
	return f, true
}

// fetch makes f and answers its waiters. A panic below it is answered too,
// as an error, and the fetch is dropped so that the next asker fetches
// again; the owner's pass then panics with it (counted once), while the
// waiters' metrics fail like any failed fetch.
func (s *SharedExternal) fetch(ctx context.Context, key string, f *sharedFetch, metricName, namespace string, selector labels.Selector, apiGroup string) {
	var values []int64
	var timestamp time.Time
	var err error
	panicked := goroutine.Recover(ctx, "shared external metric fetch", func() {
		values, timestamp, err = s.Client.GetExternalMetric(ctx, metricName, namespace, selector, apiGroup)
	})
	if panicked != nil {
		values, timestamp, err = nil, time.Time{}, panicked
	}
	s.mu.Lock()
	f.values, f.timestamp, f.err, f.fetchedAt = values, timestamp, err, s.clock.Now()
	if panicked != nil || errors.Is(err, context.Canceled) {
		// The asker went away (a worker shutting down) or the fetch hit
		// a bug; either says nothing about the metric, so the next asker
		// fetches again.
		delete(s.fetches, key)
	}
	close(f.done)
	s.mu.Unlock()
	if panicked != nil {
		panic(panicked)
	}
}

// sweep drops expired answers once the map has doubled since the last
// sweep, so that metrics no HPA asks for any more do not pile up.
func (s *SharedExternal) sweep(now time.Time) {
	if len(s.fetches) < s.sweepSize {
		return
	}
	for key, f := range s.fetches {
		if isDone(f) && now.Sub(f.fetchedAt) >= s.window {
			delete(s.fetches, key)
		}
	}
	s.sweepSize = max(64, 2*len(s.fetches))
}

func isDone(f *sharedFetch) bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}
