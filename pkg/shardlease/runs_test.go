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
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// runContexts returns the context of id's current run on each shard of
// shards, failing when one has none.
func (f *fleet) runContexts(t *testing.T, id string, shards []int) map[int]context.Context {
	t.Helper()
	ctxs := map[int]context.Context{}
	for _, i := range shards {
		ctx := f.work.ctx(id, i)
		if ctx == nil {
			t.Fatalf("%s has no run on shard %d", id, i)
		}
		ctxs[i] = ctx
	}
	return ctxs
}

// assertUntouched fails for each run of before that was cancelled or
// replaced by a new call of the Work.
func (f *fleet) assertUntouched(t *testing.T, id string, before map[int]context.Context) {
	t.Helper()
	for i, ctx := range before {
		if err := ctx.Err(); err != nil {
			t.Errorf("%s's run on shard %d, which it kept, was cancelled: %v", id, i, err)
		}
		if now := f.work.ctx(id, i); now != ctx {
			t.Errorf("%s's Work on shard %d, which it kept, was called again", id, i)
		}
	}
}

// TestGainingAShardLeavesTheKeptShardsRunsAlone pins that a replica taking
// over the shards of one that left starts runs on them only: the runs of
// the shards it held go on, never cancelled nor started again.
func TestGainingAShardLeavesTheKeptShardsRunsAlone(t *testing.T) {
	f := newFleet(t)
	a, b := f.member("a", 4), f.member("b", 4)
	f.rounds(3, a, b)
	assertPartition(t, 4, a, b)
	kept := heldShards(a)
	f.work.waitWorking(t, "a", kept)
	before := f.runContexts(t, "a", kept)
	starts := f.work.started()

	b.leave(f.ctx)
	f.work.waitWorking(t, "b", nil)
	f.rounds(1, a)
	f.work.waitWorking(t, "a", []int{0, 1, 2, 3})
	f.assertUntouched(t, "a", before)
	if n := f.work.started() - starts; n != 4-len(kept) {
		t.Errorf("a started %d runs taking %d shards, want one each", n, 4-len(kept))
	}
	f.work.noOverlaps(t)
}

// TestDroppingAShardStopsOnlyItsRun pins that a replica giving shards to a
// joining one stops the runs of those shards, each returned before its
// release is written, and leaves the runs of the shards it keeps alone.
func TestDroppingAShardStopsOnlyItsRun(t *testing.T) {
	f := newFleet(t)
	a := f.member("a", 4)
	f.rounds(2, a)
	f.work.waitWorking(t, "a", []int{0, 1, 2, 3})
	all := f.runContexts(t, "a", []int{0, 1, 2, 3})
	f.client.PrependReactor("update", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if i, ok := a.o.shardIndex(lease.Name); ok && lease.Spec.HolderIdentity == nil {
			f.work.note(fmt.Sprintf("release %d", i))
		}
		return false, nil, nil
	})

	b := f.member("b", 4)
	f.rounds(3, a, b)
	assertPartition(t, 4, a, b)
	kept := heldShards(a)
	given := heldShards(b)
	f.work.waitWorking(t, "a", kept)
	f.work.waitWorking(t, "b", given)

	before := map[int]context.Context{}
	for _, i := range kept {
		before[i] = all[i]
	}
	f.assertUntouched(t, "a", before)
	log := f.work.log()
	for _, i := range given {
		stopped := slices.Index(log, fmt.Sprintf("a -%d", i))
		released := slices.Index(log, fmt.Sprintf("release %d", i))
		switch {
		case stopped < 0 || released < 0:
			t.Errorf("shard %d: a's run stopped at %d, released at %d in %v; want both", i, stopped, released, log)
		case released < stopped:
			t.Errorf("shard %d was released before a's run on it returned: %v", i, log)
		}
		if all[i].Err() == nil {
			t.Errorf("a's run on shard %d, which it gave away, was not cancelled", i)
		}
	}
	for _, i := range kept {
		if slices.Contains(log, fmt.Sprintf("a -%d", i)) {
			t.Errorf("a's run on shard %d, which it kept, returned: %v", i, log)
		}
	}
	f.work.noOverlaps(t)
}

// TestEachShardIsFencedAtItsOwnDeadline pins the per-shard fence: a shard
// whose renewals fail is cancelled by its own timer at its own renewal
// deadline, with no round run, while a shard renewed meanwhile goes on.
func TestEachShardIsFencedAtItsOwnDeadline(t *testing.T) {
	f := newFleet(t)
	a := f.member("a", 2)
	f.rounds(2, a)
	f.work.waitWorking(t, "a", []int{0, 1})
	ctxs := f.runContexts(t, "a", []int{0, 1})

	failing := a.o.shardLease(1)
	f.client.PrependReactor("update", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease).Name == failing {
			return true, nil, apierrors.NewServiceUnavailable("shard 1's lease cannot be written")
		}
		return false, nil, nil
	})
	deadline := a.held[1].Add(testDeadline)
	// Rounds renew shard 0 until just before shard 1's deadline.
	for f.clock.Now().Add(testRetry).Before(deadline) {
		f.rounds(1, a)
		if err := ctxs[1].Err(); err != nil {
			t.Fatalf("shard 1's run was cancelled %v before its deadline", deadline.Sub(f.clock.Now()))
		}
	}
	a.round(f.ctx)
	f.step(deadline.Sub(f.clock.Now()))
	// No round: the timer alone stops shard 1's run.
	select {
	case <-ctxs[1].Done():
	case <-time.After(5 * time.Second):
		t.Fatal("shard 1's run was not cancelled at its renewal deadline")
	}
	if err := Check(ctxs[1]); !errors.Is(err, ErrFenced) {
		t.Errorf("shard 1's fence at its deadline said %v, want ErrFenced", err)
	}
	if err := ctxs[0].Err(); err != nil {
		t.Errorf("shard 0's run, renewed, was cancelled at shard 1's deadline: %v", err)
	}
	if err := Check(ctxs[0]); err != nil {
		t.Errorf("shard 0's fence at shard 1's deadline said %v, want nil", err)
	}
	f.work.waitWorking(t, "a", []int{0})
	// Shard 0's own deadline falls RenewDeadline after its last renewal.
	f.step(testDeadline)
	select {
	case <-ctxs[0].Done():
	case <-time.After(5 * time.Second):
		t.Fatal("shard 0's run was not cancelled at its own renewal deadline")
	}
}

// TestARunThatFailsEndsTheManager pins that the Work failing on one shard
// ends Run with its error, while the other shards' runs go on until then,
// and that every run is stopped and every shard released on the way out.
func TestARunThatFailsEndsTheManager(t *testing.T) {
	f := newFleet(t)
	broken := errors.New("shard 2's informers could not start")
	f.work.fail["a"] = map[int]error{2: broken}
	a := f.member("a", 4)
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	go f.tick(ctx)
	err := a.Run(ctx)
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), "shard 2") {
		t.Errorf("Run returned %v, want shard 2's error", err)
	}
	f.work.waitWorking(t, "a", nil)
	for i := range 4 {
		if holder := f.lease(a.o.shardLease(i)).Spec.HolderIdentity; holder != nil {
			t.Errorf("shard %d still names %q after Run ended", i, *holder)
		}
	}
}
