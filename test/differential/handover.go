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

package differential

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	scalefake "k8s.io/client-go/scale/fake"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
)

// A handover (fault.Handover) is a shard of HPAs moving from one replica to
// another, in both worlds: the running controller stops, as the replica
// that loses the shard stops its run (its context cancelled, its goroutines
// waited for), and a fresh instance starts, as the replica that takes the
// shard over does, with nothing in memory: new informers from a new
// factory on the same API, a new scale cache, event broadcaster and
// controller, and kube-hpa as shipped (SpreadReconciles, its own history).
// Both lose what they kept between passes and nowhere else (stabilization
// recommendations, behavior policies' scale events, kube-hpa's bookkeeping
// outside the status), so kube-hpa must come back from the status as
// upstream does.
//
// Upstream's new instance passes an HPA as soon as its informer adds it and
// counts its period from there, where kube-hpa's spread slots stay on the
// grid of the epoch: the new instances are built exactly when the HPA's
// next pass is due on its slot, so that both pass then and keep one pace.
// Their informers start and sync at that instant, before their workers
// start: a controller whose caches have not synced polls for them, and
// would pass 100 ms late, at a moment the scheduler decides. Built
// earlier, between two passes, upstream's would meet an update of the HPA
// (another writer's status) before its first pass, and queue it a period
// after that update, ahead of its pace.

// instance is one run of a world's controller, with the informers it
// reads.
type instance struct {
	cancel  context.CancelFunc
	factory informers.SharedInformerFactory
	run     func()
	wg      sync.WaitGroup
}

// newInstance builds the controller of kind under parent, on informers of
// its own, and starts the informers; start starts the controller.
func (s seqScenario) newInstance(parent context.Context, kind controllerKind, client *fake.Clientset, scales *scalefake.FakeScaleClient, f *fakeMetrics, skips *atomic.Int64) (*instance, error) {
	ctx, cancel := context.WithCancel(parent)
	in := &instance{cancel: cancel, factory: informers.NewSharedInformerFactory(client, 0)}
	run, err := s.controller(ctx, kind, client, in.factory, scales, f, skips)
	if err != nil {
		cancel()
		return nil, err
	}
	in.run = run
	in.factory.Start(ctx.Done())
	return in, nil
}

// start runs the controller: its workers start.
func (in *instance) start() { in.wg.Go(in.run) }

// stop ends the run and waits for its goroutines and informers.
func (in *instance) stop() {
	in.cancel()
	in.wg.Wait()
	in.factory.Shutdown()
}

// untilSlot is how long from now the HPA's next pass is due on its slot
// (podautoscaler.SpreadOffset), where both worlds pass.
func (s seqScenario) untilSlot(now time.Time) time.Duration {
	offset := podautoscaler.SpreadOffset(0, s.hpa(), syncPeriod)
	into := (time.Duration(now.UnixNano()) - offset) % syncPeriod
	if into < 0 {
		into += syncPeriod
	}
	if into == 0 {
		return 0
	}
	return syncPeriod - into
}

// handoverShare is the share of sequences with handovers, and
// handoverStepShare the share of their steps that have one.
const (
	handoverShare     = 0.15
	handoverStepShare = 0.3
)

// withHandovers gives some sequences handovers, at some of their steps,
// drawn from g: a generator of its own, so that the other faults fall where
// they did before. Not at a step whose watch lags (Lag, HPALag), nor right
// before a step whose target's watch lags (Lag): the new instance's scale
// cache starts its watch at its first read and reads from the API until
// that watch has synced, a pass later, so there is no watch behind for
// those steps to hold (kube-hpa would read the person's change that
// upstream's world lands after its pass).
func (s seqScenario) withHandovers(g *gen) seqScenario {
	if !g.chance(handoverShare) {
		return s
	}
	lags := func(i int) bool { return i < len(s.Steps) && s.Steps[i].Fault != nil && s.Steps[i].Fault.Lag }
	steps := make([]step, len(s.Steps))
	for i, st := range s.Steps {
		steps[i] = st
		if !g.chance(handoverStepShare) || lags(i) || lags(i+1) || st.Fault != nil && st.Fault.HPALag {
			continue
		}
		f := &fault{}
		if st.Fault != nil {
			*f = *st.Fault
		}
		f.Handover = true
		steps[i].Fault = f
	}
	s.Steps = steps
	return s
}

// handovers counts the steps of s with a handover.
func (s seqScenario) handovers() int {
	n := 0
	for _, st := range s.Steps {
		n += boolCount(st.Fault != nil && st.Fault.Handover)
	}
	return n
}
