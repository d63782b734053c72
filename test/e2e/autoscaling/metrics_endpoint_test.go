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
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// componentSeries are families that kube-controller-manager serves for its
// HPA controller, and that an operator's dashboards and alerts expect of a
// Kubernetes component, each with labels its series carry.
var componentSeries = []struct {
	metric string
	labels []string
}{
	{"process_start_time_seconds", nil},
	{"process_resident_memory_bytes", nil},
	{"go_goroutines", nil},
	{"kubernetes_build_info", []string{"git_version", "git_commit", "go_version"}},
	{"rest_client_requests_total", []string{"code", "host", "method"}},
	{"rest_client_request_duration_seconds_bucket", []string{"host", "verb", "le"}},
	{"rest_client_rate_limiter_duration_seconds_bucket", []string{"host", "verb", "le"}},
	{"workqueue_depth", []string{"name"}},
	{"workqueue_queue_duration_seconds_bucket", []string{"name", "le"}},
	{"leader_election_master_status", []string{"name"}},
	{"horizontal_pod_autoscaler_controller_reconciliations_total", []string{"action", "error"}},
	{"horizontal_pod_autoscaler_controller_metric_computation_total", []string{"action", "error", "metric_type"}},
}

var _ = sigDescribe([]string{featureHPA, crdMode}, "hpa-controller-manager /metrics", func() {
	f := newFramework("metrics-endpoint")

	ginkgo.It("should serve the families of a Kubernetes component, with their labels", func(ctx context.Context) {
		requireLocal()
		// A pass, so that the controller's own families have series.
		const name = "worker"
		metric := f.UniqueName("queue_depth")
		f.CreateDeployment(ctx, name, 1)
		f.SetExternalMetric(ctx, metric, "20")
		f.CreateHPA(ctx, framework.Extended, ownedHPA(name, name, metric))
		f.WaitForReplicas(ctx, name, 2, reaction())

		gomega.Eventually(ctx, func(ctx context.Context) error {
			page, err := suite.Controllers.LeaderMetrics(ctx)
			if err != nil {
				return err
			}
			for _, s := range componentSeries {
				if !framework.HasSeries(page, s.metric, s.labels...) {
					return fmt.Errorf("no series %s with labels %v", s.metric, s.labels)
				}
			}
			if !strings.Contains(page, `workqueue_adds_total{name="horizontalpodautoscaler"}`) {
				return fmt.Errorf("the HPA queue is not named horizontalpodautoscaler, as kube-controller-manager names it")
			}
			return nil
		}).WithTimeout(time.Minute).WithPolling(2 * time.Second).Should(gomega.Succeed())
	})
})
