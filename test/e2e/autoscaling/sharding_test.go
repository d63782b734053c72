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

package autoscaling

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// shardedReplicas is how many sharded processes the spec runs.
const shardedReplicas = 3

// shardedProcess is one replica the sharding spec runs with --sharded.
type shardedProcess struct {
	name    string
	logPath string
	// offset is where the process's log starts in logPath, passesFrom
	// where the passes the spec counts start.
	offset, passesFrom int64
	process            *os.Process
}

// log returns what the process logged from offset on.
func (p *shardedProcess) log(offset int64) string { return logSince(p.logPath, offset) }

// countPassesFromNow has passed count only the passes from now on.
func (p *shardedProcess) countPassesFromNow() {
	p.passesFrom = p.offset + int64(len(p.log(p.offset)))
}

var (
	workingLine = regexp.MustCompile(`"(Working shard|Stopped working shard)" shard=(\d+)`)
	passedLine  = regexp.MustCompile(`"HPA pass" .*hpa="([^"/]+)/`)
)

// working returns the shards the process works now, from its log: it
// starts and stops each shard's controller on its own.
func (p *shardedProcess) working() []int {
	var now []int
	for _, m := range workingLine.FindAllStringSubmatch(p.log(p.offset), -1) {
		var i int
		_, _ = fmt.Sscan(m[2], &i)
		now = slices.DeleteFunc(now, func(s int) bool { return s == i })
		if m[1] == "Working shard" {
			now = append(now, i)
		}
	}
	slices.Sort(now)
	return now
}

// passed returns the namespaces of the HPAs the process passed since
// countPassesFromNow, from its log (a line per pass at -v=4).
func (p *shardedProcess) passed() []string {
	var out []string
	for _, m := range passedLine.FindAllStringSubmatch(p.log(p.passesFrom), -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

var _ = sigDescribe([]string{featureSharded, featureHPA, serial, disruptive, crdMode}, "hpa-controller-manager sharded replicas", func() {
	f := newFramework("sharded")

	ginkgo.It("should scale the HPAs of every namespace with each HPA run by one replica, and keep scaling a killed replica's", func(ctx context.Context) {
		requireLocal()
		c := suite.Controllers
		gomega.Expect(c.WaitAllRunning(ctx)).To(gomega.Succeed())

		ginkgo.By("scaling a Deployment in each of three namespaces, by the suite's leader")
		// Created while the suite's replicas serve the admission webhook.
		frameworks := []*framework.Framework{f, framework.NewFrameworkIn(ctx, "sharded", suite), framework.NewFrameworkIn(ctx, "sharded", suite)}
		const name = "worker"
		metrics := map[string]string{}
		for _, fw := range frameworks {
			metrics[fw.Namespace] = fw.UniqueName("queue_depth")
			fw.CreateDeployment(ctx, name, 1)
			fw.SetExternalMetric(ctx, metrics[fw.Namespace], "20")
			fw.CreateHPA(ctx, framework.Extended, framework.NoScaleDownStabilization(
				framework.ExternalHPA(name, name, metrics[fw.Namespace], autoscalingv2.AverageValueMetricType, "10", 1, 5)))
		}
		for _, fw := range frameworks {
			fw.WaitForReplicas(ctx, name, 2, reaction())
		}

		ginkgo.By("granting the Lease verbs of deploy/sharding")
		manifest := filepath.Join(suite.Config.RepoRoot, "deploy", "sharding", "rbac.yaml")
		out, err := suite.Kubectl(ctx, "", "apply", "-f", manifest)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), out)
		ginkgo.DeferCleanup(func(ctx context.Context) {
			out, err := suite.Kubectl(ctx, "", "delete", "--ignore-not-found", "-f", manifest)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), out)
		})

		ginkgo.By("holding the suite's replicas and starting three with --sharded")
		args, _ := holdSuiteReplicas(ctx, c)
		group := f.UniqueName("shards")
		var replicas []*shardedProcess
		for i := range shardedReplicas {
			own, _ := withFreshPorts(args)
			own = append(own, "--sharded", "--shards=16", "--leader-elect-resource-name="+group, "--v=4")
			p := &shardedProcess{name: fmt.Sprintf("sharded-%d", i),
				logPath: filepath.Join(suite.Config.LogDir, fmt.Sprintf("hpa-controller-manager-sharded-%d.log", i))}
			p.offset, p.process = startOwnProcess(own, nil, p.logPath)
			p.passesFrom = p.offset
			replicas = append(replicas, p)
		}
		// Shared, and settled: every shard held and counted, and no move
		// left in the plan the replicas make from the Leases (the last count
		// may move shards once more), so that no handover comes after the
		// HPAs exist. The shares weigh the HPAs already in the cluster (other
		// specs'), so only their sum is known in advance.
		gomega.Eventually(ctx, func() error {
			var counts []int
			total := 0
			for _, p := range replicas {
				counts = append(counts, len(p.working()))
				total += len(p.working())
			}
			if total != 16 || slices.Contains(counts, 0) {
				return fmt.Errorf("the replicas work %v shards, want all 16 shared by the three", counts)
			}
			leases, err := suite.Kube.CoordinationV1().Leases(suite.Config.ControllerNamespace).List(ctx,
				metav1.ListOptions{LabelSelector: shardlease.GroupLeasesSelector(group)})
			if err != nil {
				return err
			}
			if moves, err := shardlease.PendingMoves(leases.Items, group, 16); err != nil || len(moves) > 0 {
				return fmt.Errorf("the replicas work %v shards; shards still to move: %v (%v)", counts, moves, err)
			}
			return nil
		}).WithTimeout(45*time.Second).WithPolling(500*time.Millisecond).Should(gomega.Succeed(), "the three replicas to share the 16 shards")
		// A replica may have passed an HPA before handing its shard on.
		for _, p := range replicas {
			p.countPassesFromNow()
		}

		ginkgo.By("scaling each to 3, by the sharded replicas")
		for _, fw := range frameworks {
			fw.SetExternalMetric(ctx, metrics[fw.Namespace], "30")
		}
		for _, fw := range frameworks {
			fw.WaitForReplicas(ctx, name, 3, reaction())
		}

		ginkgo.By("checking from the replicas' logs that each HPA was passed by one replica, the one working its shard")
		owner := map[string]*shardedProcess{}
		for _, fw := range frameworks {
			s := shard.Index(shard.NamespaceHash(fw.Namespace), 16)
			var passedBy []string
			for _, p := range replicas {
				if slices.Contains(p.passed(), fw.Namespace) {
					passedBy = append(passedBy, p.name)
				}
				if slices.Contains(p.working(), s) {
					owner[fw.Namespace] = p
				}
			}
			gomega.Expect(owner).To(gomega.HaveKey(fw.Namespace), "a replica working shard %d of namespace %s", s, fw.Namespace)
			gomega.Expect(passedBy).To(gomega.ConsistOf(owner[fw.Namespace].name), "the replicas that passed the HPA of %s (shard %d)", fw.Namespace, s)
		}

		ginkgo.By("killing the replica of the first namespace with SIGKILL, so that its Leases expire")
		victim := owner[f.Namespace]
		gomega.Expect(victim.process.Kill()).To(gomega.Succeed())
		killed := time.Now()
		for _, fw := range frameworks {
			fw.SetExternalMetric(ctx, metrics[fw.Namespace], "40")
		}
		budget := takeoverBudget()
		f.WaitForScale(ctx, name, 4, budget)
		ginkgo.AddReportEntry("scale of a killed sharded replica's HPA after SIGKILL", time.Since(killed).Round(10*time.Millisecond).String())
		for _, fw := range frameworks[1:] {
			fw.WaitForScale(ctx, name, 4, reaction())
		}
	})
})
