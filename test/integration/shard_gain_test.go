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
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	externalmetricsv1beta1 "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// TestAReplicaThatGainsAShardLeavesTheShardsItKeptAlone runs two sharded
// hpa-controller-manager processes on two shards, one each; replica a
// reaches the API only through a recording proxy. While a's pass of an HPA
// of the shard it keeps waits on its metric fetch (held by the proxy), b
// stops and a takes b's shard. Then the fetch is answered. The kept shard's
// controller never restarted: its in-flight pass gets the answer and scales
// up by the one pod its policy allows in ten minutes, the proxy saw no new
// list with the kept shard's selector (its informers did not relist) while
// the gained shard's informers listed with theirs, and when the metric
// asks for more, the HPA's next pass still holds to the policy's period,
// which only that controller's memory knows (a restarted one would have
// scaled up again).
func TestAReplicaThatGainsAShardLeavesTheShardsItKeptAlone(t *testing.T) {
	binary, cluster, ctx, kube, hpas := replicaProcessSetup(t)
	leases := createNamespace(ctx, t, cluster)

	b := startStalledReplica(t, binary, cluster.Kubeconfig(), leases, "b")
	holders := waitShardHolders(ctx, t, kube, leases, func(h []string) error {
		if h[0] == "" || h[0] != h[1] {
			return fmt.Errorf("holders %q, want b's alone", h)
		}
		return nil
	})
	idB := holders[0]

	// The fetch path is known once a holds its shard.
	var fetchPath atomic.Pointer[string]
	held := newHeldRequest(func(r *http.Request) bool {
		p := fetchPath.Load()
		return r.Method == http.MethodGet && p != nil && r.URL.Path == *p
	})
	proxy := startRecordingProxy(t, cluster, held)
	a := startStalledReplica(t, binary, proxy.kubeconfig, leases, "a")
	holders = waitShardHolders(ctx, t, kube, leases, func(h []string) error {
		if h[0] == "" || h[1] == "" || h[0] == h[1] {
			return fmt.Errorf("holders %q, want one shard each", h)
		}
		return nil
	})
	kept, gained := 0, 1
	if holders[0] == idB {
		kept, gained = 1, 0
	}
	t.Logf("a holds shard %d, b shard %d", kept, gained)

	base := fmt.Sprintf("gain-%d", time.Now().UnixNano()%100000)
	nsKept, nsGained := namespaceInShard(ctx, t, cluster, base+"-k", kept), namespaceInShard(ctx, t, cluster, base+"-g", gained)
	adapter := startMetricsAdapter(ctx, t, cluster, nsKept)
	registerMetricsAPIs(ctx, t, cluster, adapter.port)
	path := "/apis/external.metrics.k8s.io/v1beta1/namespaces/" + nsKept + "/queue_web"
	fetchPath.Store(&path)
	// The kept shard's HPA asks for two replicas, and may add one pod per
	// ten minutes.
	for _, ns := range []string{nsKept, nsGained} {
		if out, err := cluster.Kubectl("-n", ns, "create", "configmap", "test-metrics", "--from-literal=external.queue_web=2"); err != nil {
			t.Fatalf("creating the ConfigMap: %v\n%s", err, out)
		}
		createWorkload(ctx, t, kube, ns, "web", 1)
		hpa := averageValueHPA(ns, "web")
		hpa.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptr.To[int32](0),
			Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 600}},
		}}
		if _, err := hpas.Create(ctx, hpa); err != nil {
			t.Fatal(err)
		}
		// The cluster is shared with later tests whose replicas pass (and
		// count) every HPA in it.
		t.Cleanup(func() { deleteHPA(context.WithoutCancel(ctx), t, hpas, ns, "web") })
	}
	awaitReplica(t, "a's pass of the kept shard's HPA fetches its metric", held.arrived, a)
	keptSelector, gainedSelector := shardSelector(t, kept), shardSelector(t, gained)
	listsBefore := countLists(proxy.recorded(), keptSelector)
	if listsBefore == 0 {
		t.Fatalf("the proxy saw no list with the kept shard's selector %q", keptSelector)
	}

	// b leaves; a takes its shard, lists it, and passes its HPA, while its
	// pass on the kept shard still waits.
	gainAt := time.Now()
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	until(ctx, t, "a passes the gained shard's HPA", func() error {
		for _, p := range readPasses(t, []*replicaProcess{&a.replicaProcess})[nsGained+"/web"] {
			if p.start.After(gainAt) {
				return nil
			}
		}
		return fmt.Errorf("no pass of %s/web by a since b left", nsGained)
	})
	if n := countLists(proxy.recorded(), gainedSelector); n == 0 {
		t.Errorf("a passed the gained shard's HPA with no list of its own (selector %q)", gainedSelector)
	}

	// The held fetch is answered: the pass, never cancelled, gets it.
	releaseAt := time.Now()
	close(held.release)
	awaitReplica(t, "the held fetch is answered to a's pass", held.delivered, a)
	var inFlight pass
	until(ctx, t, "a's pass in flight when b left ends", func() error {
		for _, p := range readPasses(t, []*replicaProcess{&a.replicaProcess})[nsKept+"/web"] {
			if p.start.Before(gainAt) {
				inFlight = p
				return nil
			}
		}
		return fmt.Errorf("a's pass of %s/web in flight when b left has not ended", nsKept)
	})
	if !inFlight.end.After(releaseAt) {
		t.Errorf("a's pass of %s/web in flight when b left ended at %s, before its fetch was answered at %s: it was cancelled",
			nsKept, inFlight.end.Format(time.StampMilli), releaseAt.Format(time.StampMilli))
	}
	until(ctx, t, "a's held pass writes the kept shard's HPA's status", func() error {
		statusPath := "/apis/" + v2.GroupName + "/v2/namespaces/" + nsKept + "/horizontalpodautoscalers/web/status"
		for _, r := range proxy.recorded() {
			if r.method == http.MethodPut && r.succeeded() && r.path == statusPath && r.answered.After(gainAt) {
				return nil
			}
		}
		return fmt.Errorf("no status write of %s/web by a since b left", nsKept)
	})

	until(ctx, t, "a's held pass scales the kept shard's HPA up by one", func() error {
		return checkDecision(ctx, kube, hpas, nsKept, 2)
	})

	// The metric asks for five; a change of the kept HPA reaches a through
	// its informers, never restarted, and a passes it again.
	if out, err := cluster.Kubectl("-n", nsKept, "patch", "configmap", "test-metrics", "--type=merge", "-p", `{"data":{"external.queue_web":"5"}}`); err != nil {
		t.Fatalf("kubectl patch: %v\n%s", err, out)
	}
	until(ctx, t, "the adapter serves queue_web=5", func() error {
		var list externalmetricsv1beta1.ExternalMetricValueList
		if out, err := getRaw(cluster, path, &list); err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		if len(list.Items) != 1 || list.Items[0].Value.String() != "5" {
			return fmt.Errorf("it serves %v", list.Items)
		}
		return nil
	})
	changedAt := time.Now()
	hpa, err := hpas.Get(ctx, nsKept, "web")
	if err != nil {
		t.Fatal(err)
	}
	patch := fmt.Sprintf(`{"spec":{"maxReplicas":%d}}`, hpa.Spec.MaxReplicas+1)
	if out, err := cluster.Kubectl("-n", nsKept, "patch", "horizontalpodautoscalers."+v2.GroupName, "web", "--type=merge", "-p", patch); err != nil {
		t.Fatalf("kubectl patch: %v\n%s", err, out)
	}
	until(ctx, t, "a passes the changed HPA of the kept shard", func() error {
		for _, p := range readPasses(t, []*replicaProcess{&a.replicaProcess})[nsKept+"/web"] {
			if p.start.After(changedAt) {
				return nil
			}
		}
		return fmt.Errorf("no pass of %s/web by a since its change", nsKept)
	})
	// The scale-up of the held pass is in the policy's period: the pass
	// after the change holds at two.
	if err := checkDecision(ctx, kube, hpas, nsKept, 2); err != nil {
		t.Errorf("after the metric asked for five within the policy's period: %v", err)
	}
	until(ctx, t, "the kept shard's HPA says its scale-up is limited", func() error {
		hpa, err := hpas.Get(ctx, nsKept, "web")
		if err != nil {
			return err
		}
		for _, c := range hpa.Status.Conditions {
			if c.Type == autoscalingv2.ScalingLimited && c.Status == "True" && c.Reason == "ScaleUpLimit" {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", hpa.Status.Conditions)
	})

	if n := countLists(proxy.recorded(), keptSelector); n != listsBefore {
		t.Errorf("a listed with the kept shard's selector %d times before b left and %d times in all: its informers relisted", listsBefore, n)
	}
	// Every list since is the gained shard's alone: none covers the kept
	// shard again (as one run over both shards would).
	for _, r := range proxy.recorded() {
		if r.method == http.MethodGet && r.shardSelector != "" && r.answered.After(gainAt) && r.shardSelector != gainedSelector {
			t.Errorf("a listed %s with selector %q after b left, want only the gained shard's %q", r.path, r.shardSelector, gainedSelector)
		}
	}
	stopped := regexp.MustCompile(fmt.Sprintf(`"Stopped working shard" shard=%d\b`, kept))
	if log := readLog(t, a); stopped.MatchString(log) {
		t.Errorf("a stopped its controller on the shard it kept:\n%s", lastLines(log, 40))
	}
	if strings.Count(readLog(t, a), fmt.Sprintf(`"Working shard" shard=%d `, kept)) != 1 {
		t.Errorf("a started its controller on the kept shard more than once")
	}
}

// deleteHPA deletes an HPA and waits until it is gone.
func deleteHPA(ctx context.Context, t *testing.T, hpas *hpaclient.Client, ns, name string) {
	t.Helper()
	if err := hpas.Delete(ctx, ns, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting %s/%s: %v", ns, name, err)
		return
	}
	until(ctx, t, fmt.Sprintf("%s/%s is gone", ns, name), func() error {
		if _, err := hpas.Get(ctx, ns, name); !apierrors.IsNotFound(err) {
			return fmt.Errorf("get: %v", err)
		}
		return nil
	})
}

// waitShardHolders waits until the holders of the stalledShards shard
// Leases in namespace (by shard, "" for none) pass check, and returns them.
func waitShardHolders(ctx context.Context, t *testing.T, kube kubernetes.Interface, namespace string, check func([]string) error) []string {
	t.Helper()
	var holders []string
	until(ctx, t, "the shards' holders settle", func() error {
		holders = make([]string, stalledShards)
		for i := range holders {
			l, err := kube.CoordinationV1().Leases(namespace).Get(ctx, fmt.Sprintf("hpa-shard-%d", i), metav1.GetOptions{})
			if err != nil {
				return err
			}
			holders[i] = ptr.Deref(l.Spec.HolderIdentity, "")
		}
		return check(holders)
	})
	return holders
}

// namespaceInShard creates a namespace named after base whose hash falls
// into shard i of stalledShards.
func namespaceInShard(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, base string, i int) string {
	t.Helper()
	for n := 0; ; n++ {
		name := fmt.Sprintf("%s-%d", base, n)
		if shard.Index(shard.NamespaceHash(name), stalledShards) != i {
			continue
		}
		if err := cluster.CreateNamespace(ctx, name); err != nil {
			t.Fatal(err)
		}
		return name
	}
}

// shardSelector is the selector of shard i's informers.
func shardSelector(t *testing.T, i int) string {
	t.Helper()
	ranges, err := shard.Split(stalledShards)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.SelectorFor([]shard.Range{ranges[i]})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// countLists counts the lists the proxy forwarded with selector.
func countLists(records []proxiedRequest, selector string) int {
	n := 0
	for _, r := range records {
		if r.method == http.MethodGet && r.shardSelector == selector {
			n++
		}
	}
	return n
}
