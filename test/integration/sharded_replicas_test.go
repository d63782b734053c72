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
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// The replicas' timings: short, so the test takes seconds; in the binary's
// order (retry < renew deadline < lease duration).
const (
	replicaLease     = 4 * time.Second
	replicaRenew     = 2500 * time.Millisecond
	replicaRetry     = 500 * time.Millisecond
	replicaSync      = time.Second
	replicaNamespace = 9
)

// TestShardedReplicas runs three hpa-controller-manager processes with
// --sharded against kube-apiserver with ShardedListAndWatch on and off. From
// the replicas' own logs (a line per HPA pass, -v=4): while all three run,
// every HPA is passed by exactly one of them; once one is killed, its HPAs
// are passed by another within the lease duration and a sync period; no
// replica passes an HPA outside the times it worked the HPA's shard, nor
// works a shard while another does.
func TestShardedReplicas(t *testing.T) {
	shared := sharedCluster(t)
	binary := filepath.Join(shared.BinDir(), "hpa-controller-manager")
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("%v: run `make e2e-controller` (make integration does)", err)
	}
	t.Run("ShardedListAndWatch on", func(t *testing.T) {
		runShardedReplicas(t, shardedListAndWatchCluster(t), binary, true)
	})
	t.Run("ShardedListAndWatch off", func(t *testing.T) {
		runShardedReplicas(t, quietCluster(t), binary, false)
	})
}

// spreadNamespaces returns n namespace names that fall in n different
// shards of 16. Names that differ only at their end share a shard
// (docs/sharding.md, "Balance"), so the varying part comes first.
func spreadNamespaces(base string, n int) []string {
	seen := map[int]bool{}
	var out []string
	for i := 0; len(out) < n; i++ {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		name := fmt.Sprintf("s%s-%s", hex.EncodeToString(sum[:3]), base)
		if s := shard.Index(shard.NamespaceHash(name), 16); !seen[s] {
			seen[s] = true
			out = append(out, name)
		}
	}
	return out
}

// replicaProcess is one hpa-controller-manager run by the test.
type replicaProcess struct {
	name string
	cmd  *exec.Cmd
	log  string
	// stop ends the thread that started it (startWithParentDeathSignal),
	// once it has been waited for.
	stop func()
}

func runShardedReplicas(t *testing.T, cluster *localcluster.Cluster, binary string, gate bool) {
	_, ctx := ktesting.NewTestContext(t)
	hpas, err := hpaclient.New(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	leases := createNamespace(ctx, t, cluster)
	namespaces := spreadNamespaces("sharded"+leases[strings.LastIndex(leases, "-"):], replicaNamespace)
	for _, ns := range namespaces {
		if err := cluster.CreateNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
		// The target does not exist: every pass fails to read its scale,
		// which is still a pass.
		if _, err := hpas.Create(ctx, externalHPA(ns, "web", 5, nil)); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	start := func(name string) *replicaProcess {
		p := &replicaProcess{name: name, log: filepath.Join(dir, name+".log")}
		out, err := os.Create(p.log)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		p.cmd = exec.Command(binary,
			"--kubeconfig="+cluster.Kubeconfig(), "--sharded", "--shards=16",
			"--leader-elect-resource-namespace="+leases, "--leader-elect-resource-name=hpa",
			"--leader-elect-lease-duration="+replicaLease.String(), "--leader-elect-renew-deadline="+replicaRenew.String(),
			"--leader-elect-retry-period="+replicaRetry.String(), "--horizontal-pod-autoscaler-sync-period="+replicaSync.String(),
			"--secure-port=0", "-v=4")
		p.cmd.Stdout, p.cmd.Stderr = out, out
		p.stop = startWithParentDeathSignal(t, p.cmd)
		return p
	}
	replicas := []*replicaProcess{start("a"), start("b"), start("c")}
	t.Cleanup(func() {
		for _, p := range replicas {
			defer p.stop()
			if p.cmd.ProcessState != nil {
				continue // the killed one
			}
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			if err := p.cmd.Wait(); err != nil {
				b, _ := os.ReadFile(p.log)
				t.Errorf("%s, stopped, ended with %v:\n%s", p.name, err, lastLines(string(b), 30))
			}
		}
		if t.Failed() {
			for _, p := range replicas {
				if b, err := os.ReadFile(p.log); err == nil {
					t.Logf("%s's log:\n%s", p.name, lastLines(string(b), 60))
				}
			}
		}
	})

	// The shards are shared, then weighed by the HPAs the holders count.
	waitLeaseCounts(ctx, t, kubernetes.NewForConfigOrDie(cluster.RESTConfig()), leases, namespaces)
	time.Sleep(2 * replicaSync)
	settled := time.Now()
	passes, killedAt := waitEveryHPAPassed(t, replicas, namespaces, settled)
	owners := ownersIn(passes, settled, killedAt)
	victim := busiest(owners)
	for _, ns := range namespaces {
		if got := owners[ns]; len(got) != 1 {
			t.Errorf("with three replicas, %s/web was passed by %v, want exactly one", ns, got)
		}
	}
	if victim == "" {
		t.Fatalf("no replica passed any HPA between %v and %v", settled, killedAt)
	}

	var killed *replicaProcess
	for _, p := range replicas {
		if p.name == victim {
			killed = p
		}
	}
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.cmd.Wait()
	diedAt := time.Now()
	orphans := namespacesOf(owners, victim)

	time.Sleep(replicaLease + replicaSync + 3*replicaRetry + 3*time.Second)
	after := time.Now()
	passes, until := waitEveryHPAPassed(t, replicas, namespaces, after)
	owners = ownersIn(passes, after, until)
	for _, ns := range namespaces {
		if got := owners[ns]; len(got) != 1 || got[0] == victim {
			t.Errorf("after %s was killed, %s/web was passed by %v, want exactly one other replica", victim, ns, got)
		}
	}
	for _, ns := range orphans {
		first := firstPassAfter(passes[ns+"/web"], killedAt)
		took := first.Sub(killedAt)
		t.Logf("%s/web, of the killed replica %s, passed again after %v", ns, victim, took)
		if first.IsZero() || took > replicaLease+replicaSync+4*replicaRetry+2*time.Second {
			t.Errorf("%s/web, of the killed replica, was passed again %v after the kill, want within the lease duration (%v) and a period (%v)",
				ns, took, replicaLease, replicaSync)
		}
	}
	spans := readSpans(t, replicas, time.Now(), map[string]time.Time{victim: diedAt})
	for _, problem := range fencingViolations(spans, passes) {
		t.Error(problem)
	}
	t.Logf("ShardedListAndWatch %v: %d HPAs, replica %s killed, its %d HPAs taken over", gate, len(namespaces), victim, len(orphans))
}

// waitEveryHPAPassed waits until every namespace's HPA web has had a pass
// that started at from or later, two periods at least, so that a window of
// passes is whole however busy the machine is; it returns the passes read
// and the window's end.
func waitEveryHPAPassed(t *testing.T, replicas []*replicaProcess, namespaces []string, from time.Time) (map[string][]pass, time.Time) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		time.Sleep(250 * time.Millisecond)
		now := time.Now()
		passes := readPasses(t, replicas)
		owners := ownersIn(passes, from, now)
		missing := slices.DeleteFunc(slices.Clone(namespaces), func(ns string) bool { return len(owners[ns]) > 0 })
		if len(missing) == 0 && now.Sub(from) >= 2*replicaSync {
			return passes, now
		}
		if now.After(deadline) {
			t.Fatalf("no pass of the HPAs of %v since %v", missing, from)
		}
	}
}

// waitLeaseCounts waits until every shard Lease has a holder and counts the
// HPAs of its namespaces (one per namespace here), with no holder changed
// for a second, and fails if that does not come.
func waitLeaseCounts(ctx context.Context, t *testing.T, kube kubernetes.Interface, namespace string, namespaces []string) {
	t.Helper()
	want := map[string]string{}
	for i := range 16 {
		want[fmt.Sprintf("hpa-shard-%d", i)] = "0"
	}
	for _, ns := range namespaces {
		name := fmt.Sprintf("hpa-shard-%d", shard.Index(shard.NamespaceHash(ns), 16))
		want[name] = fmt.Sprint(atoi(want[name]) + 1)
	}
	var last, problem string
	stableSince := time.Now()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		list, err := kube.CoordinationV1().Leases(namespace).List(ctx, metav1.ListOptions{LabelSelector: "shards.kube-hpa.io/role=shard"})
		if err != nil {
			t.Fatal(err)
		}
		holders := map[string]string{}
		problem = ""
		for _, l := range list.Items {
			holders[l.Name] = ptr.Deref(l.Spec.HolderIdentity, "")
			if got := l.Annotations["shards.kube-hpa.io/hpas"]; got != want[l.Name] {
				problem = fmt.Sprintf("%s counts %q HPAs, want %s", l.Name, got, want[l.Name])
			}
			if holders[l.Name] == "" {
				problem = l.Name + " has no holder"
			}
		}
		if len(list.Items) != 16 {
			problem = fmt.Sprintf("%d shard Leases, want 16", len(list.Items))
		}
		if now := fmt.Sprint(holders); now != last {
			last, stableSince = now, time.Now()
		}
		if problem == "" && time.Since(stableSince) >= time.Second {
			return
		}
	}
	t.Fatalf("the shard Leases did not settle with their HPA counts: %s", problem)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// pass is one HPA pass from a replica's log.
type pass struct {
	replica    string
	start, end time.Time
}

var passLine = regexp.MustCompile(`"HPA pass" .*hpa="([^"]+)" start="([^"]+)" end="([^"]+)"`)

// readPasses reads every replica's passes, by HPA.
func readPasses(t *testing.T, replicas []*replicaProcess) map[string][]pass {
	t.Helper()
	out := map[string][]pass{}
	for _, p := range replicas {
		f, err := os.Open(p.log)
		if err != nil {
			t.Fatal(err)
		}
		scanner := bufio.NewScanner(f)
		scanner.Buffer(make([]byte, 1<<20), 1<<20)
		for scanner.Scan() {
			m := passLine.FindStringSubmatch(scanner.Text())
			if m == nil {
				continue
			}
			start, err1 := time.Parse(time.RFC3339Nano, m[2])
			end, err2 := time.Parse(time.RFC3339Nano, m[3])
			if err1 != nil || err2 != nil {
				t.Fatalf("unreadable pass times in %q", scanner.Text())
			}
			out[m[1]] = append(out[m[1]], pass{replica: p.name, start: start, end: end})
		}
		f.Close()
	}
	for _, l := range out {
		sort.Slice(l, func(i, j int) bool { return l[i].start.Before(l[j].start) })
	}
	return out
}

// ownersIn returns, for each namespace, the replicas that passed its HPA
// web with a pass starting in [from, to).
func ownersIn(passes map[string][]pass, from, to time.Time) map[string][]string {
	out := map[string][]string{}
	for key, l := range passes {
		ns, name, _ := strings.Cut(key, "/")
		if name != "web" {
			continue
		}
		for _, p := range l {
			if !p.start.Before(from) && p.start.Before(to) && !slices.Contains(out[ns], p.replica) {
				out[ns] = append(out[ns], p.replica)
			}
		}
	}
	return out
}

// busiest returns the replica that owns the most namespaces.
func busiest(owners map[string][]string) string {
	count := map[string]int{}
	best := ""
	for _, rs := range owners {
		for _, r := range rs {
			count[r]++
			if count[r] > count[best] || (count[r] == count[best] && r < best) {
				best = r
			}
		}
	}
	return best
}

func namespacesOf(owners map[string][]string, replica string) []string {
	var out []string
	for ns, rs := range owners {
		if slices.Contains(rs, replica) {
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

func firstPassAfter(l []pass, t time.Time) time.Time {
	for _, p := range l {
		if p.start.After(t) {
			return p.start
		}
	}
	return time.Time{}
}

// span is a time one replica worked one shard, from its log lines
// "Working shard" and "Stopped working shard" (or its kill): a replica
// runs one controller per shard, each started and stopped on its own.
type span struct {
	replica    string
	shards     []int
	start, end time.Time
}

var spanLine = regexp.MustCompile(`^[IWE](\d{4} \d{2}:\d{2}:\d{2}\.\d{6})\s+\d+ \S+\] "(Working shard|Stopped working shard)" shard=(\d+)`)

// readSpans reads every replica's spans; one still open ends at end, or at
// ended[replica] for a replica that was killed.
func readSpans(t *testing.T, replicas []*replicaProcess, end time.Time, ended map[string]time.Time) []span {
	t.Helper()
	var out []span
	for _, p := range replicas {
		b, err := os.ReadFile(p.log)
		if err != nil {
			t.Fatal(err)
		}
		open := map[int]*span{}
		for _, line := range strings.Split(string(b), "\n") {
			m := spanLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			at, err := time.ParseInLocation("0102 15:04:05.000000", m[1], time.UTC)
			if err != nil {
				t.Fatalf("unreadable time in %q: %v", line, err)
			}
			at = at.AddDate(end.Year(), 0, 0)
			var i int
			if _, err := fmt.Sscan(m[3], &i); err != nil {
				t.Fatalf("unreadable shard in %q: %v", line, err)
			}
			switch m[2] {
			case "Working shard":
				open[i] = &span{replica: p.name, shards: []int{i}, start: at}
			default:
				if s := open[i]; s != nil {
					s.end = at
					out = append(out, *s)
					delete(open, i)
				}
			}
		}
		for _, i := range slices.Sorted(maps.Keys(open)) {
			s := open[i]
			s.end = end
			if e, ok := ended[p.name]; ok {
				s.end = e
			}
			out = append(out, *s)
		}
	}
	return out
}

// fencingViolations checks the replicas' records against each other: no
// two replicas worked one shard at overlapping times, and every pass of an
// HPA fell within a span of its replica over the HPA's shard.
func fencingViolations(spans []span, passes map[string][]pass) []string {
	var out []string
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if a.replica == b.replica || !a.start.Before(b.end) || !b.start.Before(a.end) {
				continue
			}
			for _, s := range a.shards {
				if slices.Contains(b.shards, s) {
					out = append(out, fmt.Sprintf("shard %d worked by %s from %s to %s and by %s from %s to %s", s,
						a.replica, a.start.Format(time.StampMilli), a.end.Format(time.StampMilli),
						b.replica, b.start.Format(time.StampMilli), b.end.Format(time.StampMilli)))
				}
			}
		}
	}
	for key, l := range passes {
		ns, _, _ := strings.Cut(key, "/")
		s := shard.Index(shard.NamespaceHash(ns), 16)
		for _, p := range l {
			covered := slices.ContainsFunc(spans, func(sp span) bool {
				return sp.replica == p.replica && slices.Contains(sp.shards, s) && !p.start.Before(sp.start) && !sp.end.Before(p.end)
			})
			if !covered {
				out = append(out, fmt.Sprintf("%s (shard %d) passed by %s at %s, outside its spans on that shard", key, s, p.replica, p.start.Format(time.StampMilli)))
			}
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
