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

package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The fallback specs wait minutes of real time for failureDurationSeconds,
// so they run in parallel, and the two that disrupt the environment (a
// restart of the controllers, a stopped metrics adapter) run beside them
// instead of in the Serial phase, which would add their minutes to the
// suite. A spec that tolerates such a disruption says so by labelling its
// namespace; a disruptive spec acts only while every running spec does.
const (
	// suiteNamespaceLabel marks the namespaces of the suite's specs
	// (Framework.beforeEach).
	suiteNamespaceLabel = "e2e.kube-hpa.io/suite"
	// ToleratesDisruptionLabel marks the namespace of a spec that stays
	// correct through a restart of the controllers and an outage of the
	// metrics adapter of up to a minute.
	ToleratesDisruptionLabel = "e2e.kube-hpa.io/tolerates-disruption"
)

// TolerateDisruptions labels the spec's namespace as tolerating
// disruptions; call it first in the spec.
func (f *Framework) TolerateDisruptions(ctx context.Context) {
	ginkgo.GinkgoHelper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{ToleratesDisruptionLabel: "true"}}})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	_, err = f.Kube.CoreV1().Namespaces().Patch(ctx, f.Namespace, types.MergePatchType, patch, metav1.PatchOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "labelling namespace %s", f.Namespace)
}

// intolerantSpecs lists the namespaces of running specs that do not
// tolerate disruptions. A namespace being deleted belongs to a spec that
// has ended.
func (e *Environment) intolerantSpecs(ctx context.Context) ([]string, error) {
	list, err := e.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: suiteNamespaceLabel})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ns := range list.Items {
		if ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating || ns.Labels[ToleratesDisruptionLabel] == "true" {
			continue
		}
		out = append(out, ns.Name)
	}
	sort.Strings(out)
	return out, nil
}

// quietFor is how long no intolerant spec must run before a disruption: a
// ginkgo process creates the namespace of its next spec within a moment of
// ending the previous one, so a quiet that lasts this long is not a gap
// between two specs.
const quietFor = 3 * time.Second

// WaitUntilOnlyTolerantSpecsRun waits until every running spec tolerates
// disruptions, and has for quietFor. It is meant for specs scheduled after
// every intolerant one has started (a lower SpecPriority), so that the
// quiet lasts: it only waits for those still running to end.
func (f *Framework) WaitUntilOnlyTolerantSpecsRun(ctx context.Context, timeout time.Duration) {
	ginkgo.GinkgoHelper()
	var quietSince time.Time
	gomega.Eventually(ctx, func(ctx context.Context) error {
		running, err := f.intolerantSpecs(ctx)
		if err != nil {
			return err
		}
		if len(running) > 0 {
			quietSince = time.Time{}
			return fmt.Errorf("specs that do not tolerate disruptions are running in %v", running)
		}
		if quietSince.IsZero() {
			quietSince = time.Now()
		}
		if quiet := time.Since(quietSince); quiet < quietFor {
			return fmt.Errorf("quiet for only %v", quiet.Round(time.Millisecond))
		}
		return nil
	}).WithTimeout(timeout).WithPolling(500*time.Millisecond).Should(gomega.Succeed(),
		"waiting until only specs that tolerate disruptions run")
}

// RestartEachReplica restarts every controller replica in turn, the
// standbys first and the leader last: SIGTERM, then the Supervisor starts
// a new process. Each new process begins with nothing in memory, and the
// last one the leader hands over to never saw what came before it. One at
// a time, unlike RestartAll, so that the admission webhook (served by
// every replica behind a round robin) never goes away for the specs
// running beside. It returns the new leader once it is ready.
func (c *Controllers) RestartEachReplica(ctx context.Context) (int, error) {
	leader, err := c.WaitForLeader(ctx, -1)
	if err != nil {
		return -1, err
	}
	order := make([]int, 0, c.Count())
	for i := range c.cfg.Replicas {
		if i != leader {
			order = append(order, i)
		}
	}
	order = append(order, leader)
	for _, i := range order {
		pid, err := c.control.Signal(ctx, i, "TERM")
		if err != nil {
			return -1, err
		}
		if _, err := c.control.WaitRunning(ctx, i, pid); err != nil {
			return -1, err
		}
		// Every new process starts as a standby, ready once it serves:
		// the next SIGTERM must not leave the webhook without a replica.
		if err := c.WaitReady(ctx, i); err != nil {
			return -1, err
		}
	}
	leader, err = c.WaitForLeader(ctx, -1)
	if err != nil {
		return -1, err
	}
	return leader, c.WaitReady(ctx, leader)
}
