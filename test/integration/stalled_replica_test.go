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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"
	externalmetricsv1beta1 "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

const (
	stalledShards = 2
	// stalledSync is the replicas' sync period: long, so that each run
	// passes the HPA once, when it starts, and a's fetch budget (half of
	// it) and fetch time-out outlast the stall: a's held fetch ends with
	// its answer, and a's pass goes on to decide and write.
	stalledSync = 10 * time.Minute
	// With a target of 1 per replica, b's value keeps the target's one
	// replica and the one a's stalled pass gets asks for more (5, which the
	// scale-up limit makes 4).
	valueOfB, valueOfA = "1", "5"
	replicasOfB        = 1
)

// TestAStalledReplicaProcessWritesNothingAfterTheTakeover is the process
// counterpart of TestAStalledReplicasWriteNeverLandsAfterTheTakeover: two
// hpa-controller-manager processes with --sharded. Replica a reaches the API
// only through a recording proxy, which holds a's metric fetch of the HPA's
// pass; a is stopped (SIGSTOP) while the pass waits on it, and stays
// stopped past its lease. b takes the shards and decides to keep the
// target's one replica: it writes status, not the scale. The held fetch is
// then answered with a value that asks for more, and a resumes (SIGCONT)
// with its pass in flight. Whether the pass reads that answer or finds its
// run cancelled first (both happen: nothing orders the goroutines a resumed
// process runs), it goes on to write: a rescale over the scale it read
// before the stall, which nobody changed since, or its status. Only the
// fence (the check before each write, and the cancel of the run at the
// renewal deadline) keeps those writes from the API server, so the test
// fails without it: a write lands (the proxy records it, the target gets
// a's count), or the cancelled context cuts it short and a's log lacks the
// fence's refusal.
func TestAStalledReplicaProcessWritesNothingAfterTheTakeover(t *testing.T) {
	binary, cluster, ctx, kube, hpas := replicaProcessSetup(t)
	ns := createNamespace(ctx, t, cluster)
	adapter := startMetricsAdapter(ctx, t, cluster, ns)
	registerMetricsAPIs(ctx, t, cluster, adapter.port)
	fetchPath := "/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns + "/queue_web"
	setMetric := func(value string) {
		t.Helper()
		patch := fmt.Sprintf(`{"data":{"external.queue_web":%q}}`, value)
		if out, err := cluster.Kubectl("-n", ns, "patch", "configmap", "test-metrics", "--type=merge", "-p", patch); err != nil {
			t.Fatalf("kubectl patch: %v\n%s", err, out)
		}
		until(ctx, t, "the adapter serves queue_web="+value, func() error {
			var list externalmetricsv1beta1.ExternalMetricValueList
			if out, err := getRaw(cluster, fetchPath, &list); err != nil {
				return fmt.Errorf("%w: %s", err, out)
			}
			if len(list.Items) != 1 || list.Items[0].Value.String() != value {
				return fmt.Errorf("it serves %v", list.Items)
			}
			return nil
		})
	}
	if out, err := cluster.Kubectl("-n", ns, "create", "configmap", "test-metrics"); err != nil {
		t.Fatalf("creating the ConfigMap: %v\n%s", err, out)
	}
	setMetric(valueOfB)
	createWorkload(ctx, t, kube, ns, "web", 1)
	// From then on only the replicas write the Deployment: a's write over
	// the scale it read would otherwise conflict, which would hide a
	// missing fence.
	until(ctx, t, "the Deployment's rollout is complete", func() error {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.ObservedGeneration != d.Generation || d.Status.UpdatedReplicas != 1 || d.Status.AvailableReplicas != 1 {
			return fmt.Errorf("status %+v", d.Status)
		}
		return nil
	})
	if _, err := hpas.Create(ctx, averageValueHPA(ns, "web")); err != nil {
		t.Fatal(err)
	}

	held := newHeldRequest(func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Path == fetchPath })
	proxy := startRecordingProxy(t, cluster, held)
	a := startStalledReplica(t, binary, proxy.kubeconfig, ns, "a")
	awaitReplica(t, "a's pass of the HPA fetches its metric", held.arrived, a)
	shardLease := fmt.Sprintf("hpa-shard-%d", shard.Index(shard.NamespaceHash(ns), stalledShards))
	lease, err := kube.CoordinationV1().Leases(ns).Get(ctx, shardLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idA := ptr.Deref(lease.Spec.HolderIdentity, "")
	if idA == "" {
		t.Fatalf("a passes the HPA, but %s has no holder", shardLease)
	}
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitProcessStopped(ctx, t, a.cmd.Process.Pid)
	stopAt := time.Now()

	startStalledReplica(t, binary, cluster.Kubeconfig(), ns, "b")
	until(ctx, t, "b holds every shard", func() error {
		list, err := kube.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{LabelSelector: "shards.kube-hpa.io/role=shard"})
		if err != nil {
			return err
		}
		if len(list.Items) != stalledShards {
			return fmt.Errorf("%d shard Leases", len(list.Items))
		}
		for _, l := range list.Items {
			if h := ptr.Deref(l.Spec.HolderIdentity, ""); h == "" || h == idA {
				return fmt.Errorf("%s is held by %q", l.Name, h)
			}
		}
		return nil
	})
	if lease, err = kube.CoordinationV1().Leases(ns).Get(ctx, shardLease, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if lease.Spec.AcquireTime == nil {
		t.Fatalf("%s, taken by b, has no acquire time", shardLease)
	}
	takeoverAt := lease.Spec.AcquireTime.Time
	until(ctx, t, "b decides to keep one replica and says so in status", func() error {
		return checkDecision(ctx, kube, hpas, ns, replicasOfB)
	})

	// The held fetch gets an answer that asks for another count than b's;
	// later passes, of either replica, get b's value again.
	setMetric(valueOfA)
	close(held.release)
	awaitReplica(t, "the held fetch is answered", held.delivered, a)
	setMetric(valueOfB)

	logBefore := readLog(t, a)
	// Read while a is still stopped: a runs as soon as the signal is sent.
	contAt := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// The run a resumed in ends after its passes have: then every write a
	// stalled pass could make has been made.
	stops := strings.Count(logBefore, `"Stopped working shard"`)
	until(ctx, t, "a stops the run it was stopped in", func() error {
		if n := strings.Count(readLog(t, a), `"Stopped working shard"`); n == stops {
			return fmt.Errorf("a logged %d stops of its runs, as before SIGCONT", n)
		}
		return nil
	})
	finalState := checkDecision(ctx, kube, hpas, ns, replicasOfB)
	records := proxy.recorded()
	t.Logf("a stopped at %s; b took %s at %s; a resumed at %s", stopAt.Format(time.StampMilli), shardLease,
		takeoverAt.Format(time.StampMilli), contAt.Format(time.StampMilli))

	if violations := writesAfterTakeover(records, ns, shardLease, takeoverAt); len(violations) > 0 {
		t.Errorf("writes of the stalled replica a landed after b took %s at %s:\n%s", shardLease,
			takeoverAt.Format(time.StampMicro), strings.Join(violations, "\n"))
	}
	if finalState != nil {
		t.Errorf("after a resumed: %v", finalState)
	}
	refused := regexp.MustCompile(regexp.QuoteMeta("not writing "+ns+"/web: ") + "the shards of this work are fenced")
	if resumed := strings.TrimPrefix(readLog(t, a), logBefore); !refused.MatchString(resumed) {
		t.Errorf("a's log after SIGCONT has no refusal of the fence for %s/web", ns)
	}
	checkStalledPass(t, a, ns+"/web", stopAt, contAt)
	checkHeldFetchAnswered(t, records, fetchPath)
}

// averageValueHPA is externalHPA with a target of 1 per replica, which asks
// for as many replicas as the metric's value whatever the target's pods.
func averageValueHPA(ns, name string) *v2.HorizontalPodAutoscaler {
	perReplica := resource.MustParse("1")
	hpa := externalHPA(ns, name, 10, nil)
	hpa.Spec.Metrics[0].External.Target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &perReplica}
	return hpa
}

// checkDecision returns why the Deployment web and its HPA do not show a
// decision of replicas, or nil.
func checkDecision(ctx context.Context, kube kubernetes.Interface, hpas *hpaclient.Client, ns string, replicas int32) error {
	if got := deploymentReplicas(ctx, kube, ns, "web"); got != replicas {
		return fmt.Errorf("the Deployment has %d replicas, want %d", got, replicas)
	}
	hpa, err := hpas.Get(ctx, ns, "web")
	if err != nil {
		return err
	}
	if hpa.Status.DesiredReplicas != replicas {
		return fmt.Errorf("the HPA's status desires %d replicas, want %d", hpa.Status.DesiredReplicas, replicas)
	}
	for _, c := range hpa.Status.Conditions {
		if strings.Contains(c.Message, "fenced") {
			return fmt.Errorf("the HPA's status has a fenced pass's condition: %s %s: %s", c.Type, c.Reason, c.Message)
		}
	}
	return nil
}

// writesAfterTakeover lists the writes on the HPAs, Deployments and Events
// of ns (a fenced pass reports nothing: the new owner reports on the HPA)
// that the proxy saw land, or go unanswered, after takeoverAt and before
// the replica behind the proxy took shardLease again (a later run of its
// own, whose writes are its right).
func writesAfterTakeover(records []proxiedRequest, ns, shardLease string, takeoverAt time.Time) []string {
	leasePath := "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/" + shardLease
	var retaken time.Time
	for _, r := range records {
		if r.succeeded() && r.method != http.MethodGet && r.path == leasePath && r.answered.After(takeoverAt) {
			retaken = r.answered
			break
		}
	}
	var out []string
	for _, r := range records {
		if !r.mayHaveLanded() || r.method == http.MethodGet || !r.answered.After(takeoverAt) || (!retaken.IsZero() && r.answered.After(retaken)) {
			continue
		}
		if strings.Contains(r.path, "/namespaces/"+ns+"/horizontalpodautoscalers/") || strings.Contains(r.path, "/namespaces/"+ns+"/deployments/") ||
			strings.HasSuffix(r.path, "/namespaces/"+ns+"/events") || strings.Contains(r.path, "/namespaces/"+ns+"/events/") {
			out = append(out, fmt.Sprintf("%s %s answered %d at %s", r.method, r.path, r.code, r.answered.Format(time.StampMicro)))
		}
	}
	return out
}

// checkStalledPass checks that r's pass of hpa that started before stopAt
// ended after contAt: it was in flight across the stall.
func checkStalledPass(t *testing.T, r *runningReplica, hpa string, stopAt, contAt time.Time) {
	t.Helper()
	var stalled []pass
	for _, p := range readPasses(t, []*replicaProcess{&r.replicaProcess})[hpa] {
		if p.start.Before(stopAt) {
			stalled = append(stalled, p)
		}
	}
	if len(stalled) != 1 || !stalled[0].end.After(contAt) {
		t.Errorf("%s's passes of %s that started before SIGSTOP: %+v, want one that ended after SIGCONT", r.name, hpa, stalled)
	}
}

// checkHeldFetchAnswered checks that the fetch the proxy held was answered:
// the stalled pass had a value to decide from.
func checkHeldFetchAnswered(t *testing.T, records []proxiedRequest, fetchPath string) {
	t.Helper()
	for _, r := range records {
		if r.method == http.MethodGet && r.path == fetchPath {
			if !r.succeeded() {
				t.Errorf("the held fetch was answered %d", r.code)
			}
			return
		}
	}
	t.Errorf("the held fetch never reached kube-apiserver")
}

// runningReplica is an hpa-controller-manager process of this test.
type runningReplica struct {
	replicaProcess
	// exited is closed once the process has ended.
	exited chan struct{}
}

// startStalledReplica starts a sharded replica reaching the API through
// kubeconfig, with the leases of its group in leases, and stops it when the
// test ends.
func startStalledReplica(t *testing.T, binary, kubeconfig, leases, name string) *runningReplica {
	t.Helper()
	r := &runningReplica{replicaProcess: replicaProcess{name: name, log: filepath.Join(t.TempDir(), name+".log")}, exited: make(chan struct{})}
	out, err := os.Create(r.log)
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(binary,
		"--kubeconfig="+kubeconfig, "--sharded", fmt.Sprintf("--shards=%d", stalledShards),
		"--leader-elect-resource-namespace="+leases, "--leader-elect-resource-name=hpa",
		"--leader-elect-lease-duration="+replicaLease.String(), "--leader-elect-renew-deadline="+replicaRenew.String(),
		"--leader-elect-retry-period="+replicaRetry.String(), "--horizontal-pod-autoscaler-sync-period="+stalledSync.String(),
		"--horizontal-pod-autoscaler-metric-fetch-timeout="+stalledSync.String(),
		"--secure-port=0", "-v=4")
	r.cmd.Stdout, r.cmd.Stderr = out, out
	stop := startWithParentDeathSignal(t, r.cmd)
	go func() {
		_ = r.cmd.Wait()
		_ = out.Close()
		close(r.exited)
	}()
	t.Cleanup(func() {
		// A stopped process acts on SIGTERM only once it runs again.
		_ = r.cmd.Process.Signal(syscall.SIGCONT)
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.exited:
			if !r.cmd.ProcessState.Success() {
				t.Errorf("%s, stopped, ended with %v", name, r.cmd.ProcessState)
			}
		case <-time.After(time.Minute):
			t.Errorf("%s was still running a minute after SIGTERM", name)
			_ = r.cmd.Process.Kill()
			<-r.exited
		}
		stop()
		if t.Failed() {
			b, _ := os.ReadFile(r.log)
			t.Logf("%s's log:\n%s", name, lastLines(string(b), 80))
		}
	})
	return r
}

func readLog(t *testing.T, r *runningReplica) string {
	t.Helper()
	b, err := os.ReadFile(r.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// awaitReplica waits for ch, and fails if r ends first; the ceiling is far
// above any load, the test waits on ch itself.
func awaitReplica(t *testing.T, what string, ch <-chan struct{}, r *runningReplica) {
	t.Helper()
	select {
	case <-ch:
	case <-r.exited:
		t.Fatalf("%s ended while waiting until %s:\n%s", r.name, what, lastLines(readLog(t, r), 30))
	case <-time.After(2 * time.Minute):
		t.Fatalf("waiting until %s: nothing after two minutes", what)
	}
}

// waitProcessStopped waits until the kernel has stopped process pid: a
// signal is only queued when kill returns.
func waitProcessStopped(ctx context.Context, t *testing.T, pid int) {
	t.Helper()
	until(ctx, t, fmt.Sprintf("process %d is stopped", pid), func() error {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return err
		}
		// The state follows the command's name, in parentheses that may
		// hold anything.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) {
			return fmt.Errorf("unreadable stat %q", s)
		}
		if state := s[i+2]; state != 'T' {
			return fmt.Errorf("state %c", state)
		}
		return nil
	})
}

// replicaProcessSetup returns what a test of real replica processes needs:
// the hpa-controller-manager binary, a cluster of its own (the replicas
// pass every HPA of their cluster), a context, and clients of both kinds.
func replicaProcessSetup(t *testing.T) (string, *localcluster.Cluster, context.Context, kubernetes.Interface, *hpaclient.Client) {
	t.Helper()
	binary := filepath.Join(sharedCluster(t).BinDir(), "hpa-controller-manager")
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("%v: run `make e2e-controller` (make integration does)", err)
	}
	cluster := quietCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	kube := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	hpas, err := hpaclient.New(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return binary, cluster, ctx, kube, hpas
}
