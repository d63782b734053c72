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
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
)

// fencedRun is one run of a replica's Work on one shard, as the test sees
// it.
type fencedRun struct {
	replica string
	ctx     context.Context
	shard   int
}

// TestAStalledReplicasWriteNeverLandsAfterTheTakeover runs two replicas'
// shard managers against the real API server. Replica a holds every shard
// and has a write in flight when it is cut off; b takes the shards once a's
// Leases expire and writes; then a's write resumes. It asks the fence right
// before writing, as the controller's scale and status writes do, and the
// object keeps b's write.
func TestAStalledReplicasWriteNeverLandsAfterTheTakeover(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	ns := createNamespace(ctx, t, cluster)
	const shards = 2
	runs := make(chan fencedRun, 16)
	kube := kubernetes.NewForConfigOrDie(cluster.RESTConfig())

	// writeAs writes the object as replica's run would: fence first.
	writeAs := func(run fencedRun) error {
		if err := shardlease.Check(run.ctx); err != nil {
			return err
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "decision", Namespace: ns}, Data: map[string]string{"writer": run.replica}}
		_, err := kube.CoreV1().ConfigMaps(ns).Update(context.WithoutCancel(run.ctx), cm, metav1.UpdateOptions{})
		return err
	}
	if _, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "decision", Namespace: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	start := func(name string) (*atomic.Bool, context.CancelFunc) {
		cut := &atomic.Bool{}
		cfg := cluster.RESTConfig()
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return cuttable{next: rt, cut: cut} })
		m, err := shardlease.New(shardlease.Options{
			Client: kubernetes.NewForConfigOrDie(cfg).CoordinationV1(), Namespace: ns, Group: "fence", Identity: name, MemberSuffix: name,
			Shards: shards, LeaseDuration: shardLeaseDuration, RenewDeadline: shardRenewDeadline, RetryPeriod: shardRetryPeriod,
			Work: func(ctx context.Context, shard int) error {
				runs <- fencedRun{replica: name, ctx: ctx, shard: shard}
				<-ctx.Done()
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); _ = m.Run(runCtx) }()
		return cut, func() { stop(); <-done }
	}
	// waitRun waits for replica to run on every shard and returns its run
	// on shard 0, whose fence the writes ask; the ceiling is far above any
	// load, the test waits on the runs themselves.
	waitRun := func(replica string) fencedRun {
		t.Helper()
		timeout := time.After(2 * time.Minute)
		got := map[int]fencedRun{}
		for len(got) < shards {
			select {
			case r := <-runs:
				if r.replica == replica {
					got[r.shard] = r
				}
			case <-timeout:
				t.Fatalf("%s never worked every shard", replica)
			}
		}
		return got[0]
	}

	cutA, stopA := start("a")
	defer stopA()
	stalled := waitRun("a")
	if err := writeAs(stalled); err != nil {
		t.Fatalf("a's write while it holds the shards: %v", err)
	}

	// a's pass is in flight; a is cut off from the API server, so it can
	// renew nothing, and b takes over once a's Leases expire.
	cutA.Store(true)
	_, stopB := start("b")
	defer stopB()
	owner := waitRun("b")
	if err := writeAs(owner); err != nil {
		t.Fatalf("b's write after the takeover: %v", err)
	}

	// a's pass resumes and tries its write; it reaches the API server again.
	cutA.Store(false)
	if err := writeAs(stalled); !errors.Is(err, shardlease.ErrFenced) {
		t.Errorf("a's write after the takeover = %v, want it refused by the fence", err)
	}
	got, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "decision", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w := got.Data["writer"]; w != "b" {
		t.Errorf("the object was last written by %q after b took the shards, want b", w)
	}
}
