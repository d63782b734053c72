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
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// Leader election timing of the controllers (their defaults, which are
// kube-controller-manager's) and of client-go's elector.
const (
	leaderElectRetryPeriod = 2 * time.Second
	leaderElectJitter      = 1.2 // client-go's JitterFactor on the retry period
	// apiSlack covers API calls and the new leader's first list.
	apiSlack = 2 * time.Second
)

// takeoverBudget bounds the time from a SIGKILL of the leader to the new
// leader's first scale. The standby judges the Lease expired on its own
// clock, a lease duration after it saw the last renewal, which it sees up
// to one (jittered) retry period late; it then acquires at its next retry;
// its first pass over an HPA comes one sync period after its informers
// list it, as upstream's does. So: lease duration + two retry periods +
// one sync period, not only the first and the last.
func takeoverBudget() time.Duration {
	retry := time.Duration(float64(leaderElectRetryPeriod) * leaderElectJitter)
	return suite.Config.LeaseDuration.Duration + 2*retry + suite.Config.SyncPeriod.Duration + apiSlack
}

// takeoverSlack is how much later than its lease duration the standby may
// take over.
func takeoverSlack() time.Duration {
	return time.Duration(2*float64(leaderElectRetryPeriod)*leaderElectJitter) + apiSlack
}

var _ = sigDescribe([]string{featureHPA, serial, disruptive, crdMode}, "hpa-controller-manager leader election", func() {
	f := newFramework("leader-election")

	ginkgo.It("should keep scaling after the leader is killed, within the lease duration and one sync period", func(ctx context.Context) {
		requireLocal()
		c := suite.Controllers
		gomega.Expect(c.WaitAllRunning(ctx)).To(gomega.Succeed())

		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "20")
		f.CreateHPA(ctx, framework.Extended, framework.NoScaleDownStabilization(
			framework.ExternalHPA(name, name, metric, autoscalingv2.AverageValueMetricType, "10", 1, 5)))
		ginkgo.By("waiting for the leader to scale to 2")
		f.WaitForReplicas(ctx, name, 2, reaction())

		ginkgo.By("killing the leader with SIGKILL, so that it cannot release the Lease")
		// Held down until the other replica has taken over: restarted at
		// once, the killed replica would race it for the Lease.
		old, err := c.WaitForLeader(ctx, -1)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(c.Control().Hold(ctx, old, "KILL")).To(gomega.Succeed())
		killed := time.Now()
		ginkgo.DeferCleanup(func(ctx context.Context) error { return c.Control().Release(ctx, old) })
		f.SetExternalMetric(ctx, metric, "40")

		budget := takeoverBudget()
		ginkgo.By("waiting for the other replica to take over and scale to 4")
		waitCtx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		leader, err := c.WaitForLeader(waitCtx, old)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		takeover := time.Since(killed)
		f.WaitForScale(ctx, name, 4, max(budget-time.Since(killed), time.Second))
		scaled := time.Since(killed)
		ginkgo.AddReportEntry("takeover after SIGKILL", takeover.Round(10*time.Millisecond).String())
		ginkgo.AddReportEntry("scale by the new leader after SIGKILL", scaled.Round(10*time.Millisecond).String())
		gomega.Expect(leader).NotTo(gomega.Equal(old))
		gomega.Expect(scaled).To(gomega.BeNumerically("<=", budget))

		ginkgo.By("letting the supervisor restart the killed replica, as a standby")
		gomega.Expect(c.Control().Release(ctx, old)).To(gomega.Succeed())
		gomega.Expect(c.WaitAllRunning(ctx)).To(gomega.Succeed())
		gomega.Consistently(ctx, c.Leaders).WithTimeout(2 * time.Second).Should(gomega.Equal([]int{leader}))
		f.WaitForReplicas(ctx, name, 4, reaction())
	})
})
