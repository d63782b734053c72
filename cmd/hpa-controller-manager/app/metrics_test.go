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

package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor/monitortest"
)

// queueName is the name kube-controller-manager gives its HPA queue.
const queueName = "horizontalpodautoscaler"

// Workqueue metric names and their HELP and TYPE lines, as
// kube-controller-manager v1.36 exposes them.
const (
	depthName        = "workqueue_depth"
	addsName         = "workqueue_adds_total"
	queueDurName     = "workqueue_queue_duration_seconds"
	workDurName      = "workqueue_work_duration_seconds"
	unfinishedName   = "workqueue_unfinished_work_seconds"
	longestName      = "workqueue_longest_running_processor_seconds"
	retriesName      = "workqueue_retries_total"
	depthHeader      = "# HELP workqueue_depth [BETA] Current depth of workqueue\n# TYPE workqueue_depth gauge\n"
	addsHeader       = "# HELP workqueue_adds_total [BETA] Total number of adds handled by workqueue\n# TYPE workqueue_adds_total counter\n"
	queueDurHeader   = "# HELP workqueue_queue_duration_seconds [BETA] How long in seconds an item stays in workqueue before being requested.\n# TYPE workqueue_queue_duration_seconds histogram\n"
	workDurHeader    = "# HELP workqueue_work_duration_seconds [BETA] How long in seconds processing an item from workqueue takes.\n# TYPE workqueue_work_duration_seconds histogram\n"
	unfinishedHeader = "# HELP workqueue_unfinished_work_seconds [BETA] How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.\n# TYPE workqueue_unfinished_work_seconds gauge\n"
	longestHeader    = "# HELP workqueue_longest_running_processor_seconds [BETA] How many seconds has the longest running processor for workqueue been running.\n# TYPE workqueue_longest_running_processor_seconds gauge\n"
	retriesHeader    = "# HELP workqueue_retries_total [BETA] Total number of retries handled by workqueue\n# TYPE workqueue_retries_total counter\n"
)

// queueBuckets are the upper bounds of component-base's workqueue
// histograms, as kube-controller-manager prints them: the multiplications
// that make them leave two a hair under their power of ten.
func queueBuckets() []string {
	return []string{"1e-08", "1e-07", "1e-06", "9.999999999999999e-06", "9.999999999999999e-05", "0.001", "0.01", "0.1", "1", "10"}
}

// queueSample is one sample line of a workqueue gauge or counter of the
// HPA queue.
func queueSample(name, value string) string {
	return name + `{name="` + queueName + `"} ` + value + "\n"
}

// queueHistogram is the exposition of the HPA queue's series of a workqueue
// histogram whose observations are all value, in every bucket from
// firstBucket on.
func queueHistogram(name string, count int, value float64, firstBucket int) string {
	return monitortest.Histogram(name, `name="`+queueName+`"`, queueBuckets(), count, value, firstBucket)
}

// TestQueueMetrics checks the workqueue_* metrics that /metrics serves for
// the HPA queue, from component-base's provider, against what
// kube-controller-manager exposes.
func TestQueueMetrics(t *testing.T) {
	tests := []struct {
		name string
		// use works the queue, stepping the clock.
		use   func(q workqueue.TypedRateLimitingInterface[string], clk *testingclock.FakeClock)
		names []string
		want  string
	}{
		{
			name: "an item waits from Add to Get and is worked on from Get to Done, every metric as kube-controller-manager exposes it",
			use: func(q workqueue.TypedRateLimitingInterface[string], clk *testingclock.FakeClock) {
				q.Add("a")
				clk.Step(2 * time.Second)
				q.Get()
				clk.Step(3 * time.Second)
				q.Done("a")
				// The tick of the step above may be handled before or
				// after Done; one more tick, surely after it, settles the
				// unfinished-work gauges at zero.
				clk.Step(time.Second)
			},
			names: []string{depthName, addsName, queueDurName, workDurName, unfinishedName, longestName, retriesName},
			want: depthHeader + queueSample(depthName, "0") +
				addsHeader + queueSample(addsName, "1") +
				queueDurHeader + queueHistogram(queueDurName, 1, 2, 9) +
				workDurHeader + queueHistogram(workDurName, 1, 3, 9) +
				unfinishedHeader + queueSample(unfinishedName, "0") +
				longestHeader + queueSample(longestName, "0") +
				retriesHeader + queueSample(retriesName, "0"),
		},
		{
			name: "an item added again before Get counts once and waits from its first Add",
			use: func(q workqueue.TypedRateLimitingInterface[string], clk *testingclock.FakeClock) {
				q.Add("a")
				clk.Step(time.Second)
				q.Add("a")
				clk.Step(time.Second)
				q.Get()
			},
			names: []string{depthName, addsName, queueDurName},
			want: depthHeader + queueSample(depthName, "0") +
				addsHeader + queueSample(addsName, "1") +
				queueDurHeader + queueHistogram(queueDurName, 1, 2, 9),
		},
		{
			name: "an item added again while worked on stays in the depth after Done",
			use: func(q workqueue.TypedRateLimitingInterface[string], _ *testingclock.FakeClock) {
				q.Add("a")
				q.Get()
				q.Add("a")
				q.Done("a")
			},
			names: []string{depthName, addsName},
			want: depthHeader + queueSample(depthName, "1") +
				addsHeader + queueSample(addsName, "2"),
		},
		{
			name: "AddRateLimited and AddAfter each count a retry and, without delay, an add",
			use: func(q workqueue.TypedRateLimitingInterface[string], _ *testingclock.FakeClock) {
				q.AddRateLimited("a")
				q.AddAfter("b", 0)
			},
			names: []string{depthName, addsName, retriesName},
			want: depthHeader + queueSample(depthName, "2") +
				addsHeader + queueSample(addsName, "2") +
				retriesHeader + queueSample(retriesName, "2"),
		},
		{
			name: "items being worked on add up in unfinished work; the oldest is the longest running processor",
			use: func(q workqueue.TypedRateLimitingInterface[string], clk *testingclock.FakeClock) {
				q.Add("a")
				q.Add("b")
				q.Get()
				clk.Step(time.Second)
				q.Get()
				clk.Step(3 * time.Second)
			},
			names: []string{unfinishedName, longestName},
			want: unfinishedHeader + queueSample(unfinishedName, "7") +
				longestHeader + queueSample(longestName, "4"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// component-base's provider keeps its series on the legacy
			// registry; each case starts from none.
			legacyregistry.Reset()
			gatherer := metricsGatherer(metrics.NewKubeRegistry())
			clk := testingclock.NewFakeClock(time.Unix(1_700_000_000, 0))
			q := workqueue.NewTypedRateLimitingQueueWithConfig(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, 0),
				workqueue.TypedRateLimitingQueueConfig[string]{Name: queueName, Clock: clk},
			)
			defer q.ShutDown()
			// The delaying queue's heartbeat and the unfinished-work
			// ticker: the latter starts in a goroutine, and a step before
			// it exists would not reach it.
			waitFor(t, func() error {
				if n := clk.Waiters(); n < 2 {
					return fmt.Errorf("the queue has %d of its 2 tickers", n)
				}
				return nil
			})
			tc.use(q, clk)
			// The unfinished-work gauges are set on the ticker's goroutine,
			// after the last step; every other metric is set already.
			waitFor(t, func() error {
				return testutil.GatherAndCompare(gatherer, strings.NewReader(tc.want), tc.names...)
			})
		})
	}
}

// waitFor polls check until it returns nil, and fails t with its last
// error after a few seconds.
func waitFor(t *testing.T, check func() error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		t.Fatal(last)
	}
}

// TestMetricsGatherer checks that /metrics serves, beside the HPA
// controller's families, those a Kubernetes component serves: client-go's
// (workqueue_*, rest_client_*, leader_election_*) and the process_* and
// go_* collectors.
func TestMetricsGatherer(t *testing.T) {
	registry := metrics.NewKubeRegistry()
	monitor.New(registry).SetHPACount(1)
	useClientGo(t)

	families, err := metricsGatherer(registry).Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	prefixes := []string{"horizontal_pod_autoscaler_controller_", "workqueue_", "rest_client_", "leader_election_", "process_", "go_"}
	seen := map[string]bool{}
	for _, f := range families {
		for _, p := range prefixes {
			if strings.HasPrefix(f.GetName(), p) {
				seen[p] = true
			}
		}
	}
	for _, p := range prefixes {
		if !seen[p] {
			t.Errorf("/metrics serves no %s* family", p)
		}
	}
}
