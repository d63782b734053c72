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

package shardlease

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

// Manager holds a fair share of the shards and runs the Work on them.
type Manager struct {
	o    Options
	view view
	// held maps each shard this replica holds to when its last successful
	// renewal (or acquisition) was sent; the fence falls RenewDeadline later.
	held map[int]time.Time
	// runs is the Work's run on each shard worked, each fenced at its own
	// shard's deadline: a change of the shard set starts or stops only the
	// runs of the shards gained or lost, never those of the shards kept.
	runs map[int]*running
	// ended is signalled when a run returns, so that Run's loop looks at
	// once at a fenced or failed run.
	ended chan struct{}
	// failure is the first run that ended on its own; Run returns it.
	failure error
	// joined is set once the member Lease has been written. Replicas started
	// together would each see no peer in their first list and take every
	// shard for a round (their informers' memory with it), so a replica
	// plans only from the round after the one that registered it, when its
	// peers' lists have had a retry period to see it.
	joined bool
	// counts is the HPAs of each worked shard, as its run last told them.
	counts map[int]int
}

// New checks the options and returns a Manager holding nothing yet.
func New(o Options) (*Manager, error) {
	if err := o.complete(); err != nil {
		return nil, err
	}
	return &Manager{
		o: o, view: view{}, held: map[int]time.Time{}, runs: map[int]*running{},
		ended: make(chan struct{}, 1), counts: map[int]int{},
	}, nil
}

// Run takes part in the group until ctx ends, then stops the Work and gives
// the shards and the member Lease back so that the others take over at once.
// It returns an error only when the Work of a shard ended on its own.
func (m *Manager) Run(ctx context.Context) error {
	ticker := m.o.Clock.NewTicker(m.o.RetryPeriod)
	defer ticker.Stop()
	defer m.leave(ctx)
	for {
		m.round(ctx)
		// A run ends with ctx too; only an end of its own is a failure.
		if ctx.Err() == nil && m.failure != nil {
			return m.failure
		}
		select {
		case <-ctx.Done():
			return nil
		case <-m.ended:
			// Fenced or failed: the next round tells which.
		case <-ticker.C():
		}
	}
}

func errOrStopped(err error) error {
	if err == nil {
		return errors.New("returned without error")
	}
	return err
}

// round is one pass of list, renew, fence and plan. Every API call is bounded
// by RetryPeriod, so a round ends even when the API server does not answer;
// the fence does not wait for rounds.
func (m *Manager) round(ctx context.Context) {
	logger := klog.FromContext(ctx)
	now := m.o.Clock.Now()
	listed := m.list(ctx)
	joined := m.joined
	m.joined = m.renewMember(ctx, now) || m.joined
	m.recount()
	m.renewHeld(ctx, now)
	m.dropFenced(ctx, m.o.Clock.Now())
	if !listed || !joined {
		m.setWork(ctx)
		return
	}
	standing, foreign := m.standing(now)
	if foreign != "" {
		logger.Info("Not acquiring shards while a replica with another shard count is live", "lease", foreign, "shards", m.o.Shards)
		m.setWork(ctx)
		return
	}
	moves, err := shard.PlanReplica(m.o.Identity, m.o.Shards, standing)
	if err != nil {
		logger.Error(err, "Planning the shards")
		m.setWork(ctx)
		return
	}
	if len(moves.Release) > 0 {
		for _, i := range moves.Release {
			delete(m.held, i)
		}
		// The work on the released shards ends before anyone may take them.
		m.setWork(ctx)
		for _, i := range moves.Release {
			m.release(ctx, i)
		}
	}
	for _, i := range moves.Acquire {
		m.acquire(ctx, i, m.o.Clock.Now())
	}
	m.setWork(ctx)
}

// list reads the group's Leases; a quorum read, so a lagging cache never
// hides a holder. A new version is timed from when the answer arrived, not
// from when the list was sent: a list that took long would otherwise date
// another replica's renewal earlier than this replica saw it, expire it
// early and eat into the margin between RenewDeadline and LeaseDuration.
func (m *Manager) list(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, m.o.RetryPeriod)
	defer cancel()
	list, err := m.o.Client.Leases(m.o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: GroupLeasesSelector(m.o.Group)})
	if err != nil {
		klog.FromContext(ctx).Error(err, "Listing the shard leases")
		return false
	}
	m.view = m.view.observe(list.Items, m.o.Clock.Now())
	return true
}

// standing returns what the view says of the group: who is live, who holds
// each shard, who released each free one, the HPAs counted in each (only
// once every shard has a count: weighing some shards' HPAs against others'
// unknown ones would move shards for what is not known yet, and again when
// it is), and the name of a live Lease written with another shard count, if
// any. A shard's count and releaser stay in its Lease after a release or
// expiry, for planning who takes it. A shard whose Lease names this replica
// but that it does not hold (it was fenced, or it restarted with the same
// identity) counts as free, so it is acquired again through a fresh write
// before any work on it.
func (m *Manager) standing(now time.Time) (s shard.Standing, foreign string) {
	s = shard.Standing{
		Live:     []string{m.o.Identity},
		Current:  make([]string, m.o.Shards),
		Released: make([]string, m.o.Shards),
		HPAs:     make([]int, m.o.Shards),
	}
	counted := 0
	for _, name := range slices.Sorted(maps.Keys(m.view)) {
		l := m.view[name]
		sameCount := l.count() == m.o.Shards
		i, isShard := m.o.shardIndex(name)
		isShard = isShard && l.lease.Labels[roleLabel] == roleShard && sameCount
		if isShard {
			n, ok := l.hpas()
			if ok {
				s.HPAs[i] = n
				counted++
			}
			s.Released[i] = l.lease.Annotations[releasedAnnotation]
		}
		holder := l.holder(now, m.o.LeaseDuration)
		if holder == "" {
			continue
		}
		if !sameCount {
			foreign = name
			continue
		}
		switch l.lease.Labels[roleLabel] {
		case roleReplica:
			s.Live = append(s.Live, holder)
		case roleShard:
			if isShard && (holder != m.o.Identity || m.holds(i)) {
				s.Current[i] = holder
			}
		}
	}
	if counted < m.o.Shards {
		s.HPAs = nil
	}
	return s, foreign
}

// recount asks each run for the HPAs of its shard; a run that does not
// know yet leaves the last count, and the Lease's annotation with it. A
// shard just acquired is not in its run's informers yet, and keeps the
// count its last holder wrote.
func (m *Manager) recount() {
	if m.o.Count == nil {
		return
	}
	for i, r := range m.runs {
		if r.ended() {
			continue
		}
		if n, ok := m.o.Count(i); ok {
			m.counts[i] = n
		}
	}
}

func (m *Manager) holds(i int) bool {
	_, ok := m.held[i]
	return ok
}

// dropFenced forgets the shards whose renewal deadline has passed; their
// work was already cancelled by the fence timer.
func (m *Manager) dropFenced(ctx context.Context, now time.Time) {
	for _, i := range slices.Sorted(maps.Keys(m.held)) {
		if !now.Before(m.held[i].Add(m.o.RenewDeadline)) {
			klog.FromContext(ctx).Info("Stopped working a shard whose lease could not be renewed in time", "shard", i, "lease", m.o.shardLease(i))
			delete(m.held, i)
		}
	}
}

// setWork makes the runs match the held shards: a run for each shard
// gained, the run of each shard lost stopped and waited for, and a new run
// for a shard whose run was fenced but that is held again. The runs of the
// shards kept go on untouched, their fences moved to their latest renewals.
func (m *Manager) setWork(ctx context.Context) {
	logger := klog.FromContext(ctx)
	var stopping []*running
	for _, i := range slices.Sorted(maps.Keys(m.runs)) {
		r := m.runs[i]
		if r.failed() && ctx.Err() == nil && m.failure == nil {
			// Run reports it; a restart here would hide it.
			m.failure = fmt.Errorf("the controllers stopped on shard %d: %w", i, errOrStopped(r.err))
		}
		if _, held := m.held[i]; held && !r.ended() {
			continue
		}
		// Stopped even when another run failed or ctx ended: a shard
		// given back is released only after its run returned.
		stopping = append(stopping, r)
		delete(m.runs, i)
		delete(m.counts, i)
	}
	stopAll(stopping)
	for _, r := range stopping {
		logger.Info("Stopped working shard", "shard", r.shard)
	}
	changed := len(stopping) > 0
	if m.failure == nil && ctx.Err() == nil {
		// Shutting down, leave stops the runs; after a failure, Run ends.
		for _, i := range slices.Sorted(maps.Keys(m.held)) {
			deadline := m.held[i].Add(m.o.RenewDeadline)
			r, ok := m.runs[i]
			if !ok {
				logger.Info("Working shard", "shard", i, "of", m.o.Shards)
				r = start(ctx, m.o.Clock, m.o.Work, i, deadline, m.ended)
				m.runs[i] = r
				// The new run counts anew; until it does, the Lease keeps
				// its count.
				delete(m.counts, i)
				changed = true
			}
			r.fenceAt(m.o.Clock, deadline)
		}
	}
	if changed && m.o.OnHeld != nil {
		m.o.OnHeld(slices.Sorted(maps.Keys(m.runs)))
	}
}

// leave stops the Work, then releases every shard and deletes the member
// Lease, with a context of its own since ctx has ended.
func (m *Manager) leave(ctx context.Context) {
	shards := slices.Sorted(maps.Keys(m.runs))
	runs := make([]*running, 0, len(shards))
	for _, i := range shards {
		runs = append(runs, m.runs[i])
	}
	stopAll(runs)
	for _, i := range shards {
		klog.FromContext(ctx).Info("Stopped working shard", "shard", i)
	}
	clear(m.runs)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.o.RenewDeadline)
	defer cancel()
	for _, i := range slices.Sorted(maps.Keys(m.held)) {
		delete(m.held, i)
		m.release(ctx, i)
	}
	if m.o.OnHeld != nil {
		m.o.OnHeld(nil)
	}
	m.deleteMember(ctx)
}
