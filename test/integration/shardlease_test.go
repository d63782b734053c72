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

package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
)

// Short lease timings keep the test to seconds; their order is the
// binary's (retry < renew deadline < lease duration).
const (
	shardLeaseDuration = 4 * time.Second
	shardRenewDeadline = 2500 * time.Millisecond
	shardRetryPeriod   = 500 * time.Millisecond
	testShards         = 16
)

// interval is a time one replica worked one shard; end is zero while it
// still does.
type interval struct {
	replica    string
	start, end time.Time
}

// shardRecords are the replicas' own records of when they worked which
// shard, in real time.
type shardRecords struct {
	mu    sync.Mutex
	byRun map[string]map[int]bool // replica -> shards of its current runs
	log   map[int][]interval
}

func (r *shardRecords) work(replica string) shardlease.Work {
	return func(ctx context.Context, s int) error {
		r.mu.Lock()
		r.log[s] = append(r.log[s], interval{replica: replica, start: time.Now()})
		if r.byRun[replica] == nil {
			r.byRun[replica] = map[int]bool{}
		}
		r.byRun[replica][s] = true
		r.mu.Unlock()

		<-ctx.Done()

		r.mu.Lock()
		now := time.Now()
		l := r.log[s]
		for i := range l {
			if l[i].replica == replica && l[i].end.IsZero() {
				l[i].end = now
			}
		}
		delete(r.byRun[replica], s)
		r.mu.Unlock()
		return nil
	}
}

// working returns which replica works each shard now ("" for none), and an
// error if two do.
func (r *shardRecords) working() ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	owners := make([]string, testShards)
	for replica, shards := range r.byRun {
		for s := range shards {
			if owners[s] != "" {
				return nil, fmt.Errorf("shard %d worked by %s and %s", s, owners[s], replica)
			}
			owners[s] = replica
		}
	}
	return owners, nil
}

// overlaps lists every time two replicas worked one shard at once.
func (r *shardRecords) overlaps() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for s, l := range r.log {
		l = slices.Clone(l)
		sort.Slice(l, func(i, j int) bool { return l[i].start.Before(l[j].start) })
		for i := range l {
			for j := i + 1; j < len(l); j++ {
				if l[i].replica != l[j].replica && (l[i].end.IsZero() || l[j].start.Before(l[i].end)) {
					out = append(out, fmt.Sprintf("shard %d: %s from %s to %s, %s from %s", s,
						l[i].replica, l[i].start.Format(time.StampMilli), l[i].end.Format(time.StampMilli),
						l[j].replica, l[j].start.Format(time.StampMilli)))
				}
			}
		}
	}
	return out
}

// cuttable fails every request while cut is set: a replica cut off from
// the API server, as a network partition or a stalled node leaves it.
type cuttable struct {
	next http.RoundTripper
	cut  *atomic.Bool
}

func (c cuttable) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.cut.Load() {
		return nil, errors.New("cut off from the API server")
	}
	return c.next.RoundTrip(req)
}

// shardReplica is one sharded replica run by the test.
type shardReplica struct {
	name string
	cut  *atomic.Bool
	stop context.CancelFunc
	done chan error
}

// TestShardLeasesAgainstTheAPIServer runs three replicas' shard managers
// against the real API server: they share the shards fairly, a replica cut
// off stops before its shards are taken over and they are taken over, it gets its share back once it returns,
// and one that leaves hands its shards over at once. No shard is ever
// worked by two replicas at once, by the replicas' own records.
func TestShardLeasesAgainstTheAPIServer(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	ns := createNamespace(ctx, t, cluster)
	records := &shardRecords{byRun: map[string]map[int]bool{}, log: map[int][]interval{}}

	start := func(name string) *shardReplica {
		r := &shardReplica{name: name, cut: &atomic.Bool{}, done: make(chan error, 1)}
		cfg := cluster.RESTConfig()
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return cuttable{next: rt, cut: r.cut} })
		client := kubernetes.NewForConfigOrDie(cfg)
		m, err := shardlease.New(shardlease.Options{
			Client: client.CoordinationV1(), Namespace: ns, Group: "hpa", Identity: name, MemberSuffix: name,
			Shards: testShards, LeaseDuration: shardLeaseDuration, RenewDeadline: shardRenewDeadline, RetryPeriod: shardRetryPeriod,
			Work: records.work(name),
		})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		r.stop = stop
		go func() { r.done <- m.Run(runCtx) }()
		return r
	}
	a, b, c := start("a"), start("b"), start("c")
	t.Cleanup(func() {
		for _, r := range []*shardReplica{a, b, c} {
			r.stop()
		}
	})

	// waitShares waits until the named replicas work every shard between
	// them, each its fair share.
	waitShares := func(within time.Duration, replicas ...string) time.Duration {
		t.Helper()
		began := time.Now()
		var last []string
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, within, true, func(context.Context) (bool, error) {
			owners, err := records.working()
			if err != nil {
				return false, err
			}
			last = owners
			count := map[string]int{}
			for _, o := range owners {
				if !slices.Contains(replicas, o) {
					return false, nil
				}
				count[o]++
			}
			for _, r := range replicas {
				if n := count[r]; n < testShards/len(replicas) || n > testShards/len(replicas)+1 {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			t.Fatalf("waiting for %v to share the shards: %v; owners %q", replicas, err, last)
		}
		return time.Since(began)
	}

	waitShares(30*time.Second, "a", "b", "c")

	// How fast a takeover comes depends on how fast the API server answers
	// the rounds: on a busy machine one round's calls each take up to a
	// retry period. The bound on an ownerless shard (a lease duration after
	// its last sighting, then one round) is pinned with a fake clock in
	// pkg/shardlease; here the test waits for the takeover itself, with a
	// ceiling far above any load, and checks only what load cannot excuse:
	// no takeover before the lease could expire, and no overlap.
	const takeoverCeiling = 2 * time.Minute
	b.cut.Store(true)
	took := waitShares(takeoverCeiling, "a", "c")
	t.Logf("the shards of the replica cut off were worked again after %v", took)
	if took < shardLeaseDuration-2*shardRetryPeriod {
		t.Errorf("the shards of the replica cut off moved after %v, before its lease could have expired", took)
	}

	b.cut.Store(false)
	waitShares(30*time.Second, "a", "b", "c")

	a.stop()
	if err := <-a.done; err != nil {
		t.Errorf("a replica that left returned %v", err)
	}
	took = waitShares(takeoverCeiling, "b", "c")
	t.Logf("the shards of the replica that left were worked again after %v", took)

	for _, o := range records.overlaps() {
		t.Error(o)
	}
}
