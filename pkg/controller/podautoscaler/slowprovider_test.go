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

package podautoscaler

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// providerStub stands in front of the fake metrics: the external metric
// named hang never answers, and with meet set every external fetch waits
// until the others of its pass have started.
type providerStub struct {
	metrics.Client
	hang string
	meet *sync.WaitGroup
	// asks, when set, counts the fetches of the hanging metric.
	asks *atomic.Int32
}

var errNotConcurrent = errors.New("the other fetches of the pass never started: fetches run one after the other")

func (s providerStub) GetExternalMetric(ctx context.Context, name, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error) {
	if s.meet != nil {
		s.meet.Done()
		met := make(chan struct{})
		go func() { s.meet.Wait(); close(met) }()
		select {
		case <-met:
		case <-time.After(5 * time.Second):
			return nil, time.Time{}, errNotConcurrent
		}
	}
	if name == s.hang {
		if s.asks != nil {
			s.asks.Add(1)
		}
		<-ctx.Done()
		return nil, time.Time{}, ctx.Err()
	}
	return s.Client.GetExternalMetric(ctx, name, namespace, selector, apiGroup)
}

// TestSlowProviderHoldsOnePassOnly pins the fourth safety rule inside a
// pass: the fetches of one pass run side by side, and a provider that
// hangs is cut off at the pass's fetch budget (half the period) and counts
// as a failed fetch, while the other metrics of the HPA still decide.
func TestSlowProviderHoldsOnePassOnly(t *testing.T) {
	t.Run("the fetches of a pass run concurrently", func(t *testing.T) {
		var meet sync.WaitGroup
		meet.Add(2)
		h := newHarness(t, newHPA(1, 10, externalValue("queue_a", "10"), externalValue("queue_b", "10")), harnessOptions{
			wrapMetrics: func(c metrics.Client) metrics.Client { return providerStub{Client: c, meet: &meet} },
		})
		h.scales.setScale(1, 1, testSelector)
		h.addPods(1, 100)
		h.metrics.SetExternal("queue_a", metricstest.ExternalAnswer{Values: []int64{20000}, Timestamp: testStart})
		h.metrics.SetExternal("queue_b", metricstest.ExternalAnswer{Values: []int64{30000}, Timestamp: testStart})
		if err := h.reconcile(testHPAName); err != nil {
			t.Fatalf("reconcile: %v", err)
		}
		h.assertUpdates(3)
	})

	t.Run("a hanging provider ends at the fetch budget and fails its metric only", func(t *testing.T) {
		// A 200ms period gives a 100ms budget; the fetch time-out (10s) is
		// never reached.
		h := newHarness(t, newHPA(1, 10, externalValue("queue_hanging", "10"), externalValue("queue_ok", "10")), harnessOptions{
			syncPeriod:  200 * time.Millisecond,
			wrapMetrics: func(c metrics.Client) metrics.Client { return providerStub{Client: c, hang: "queue_hanging"} },
		})
		h.scales.setScale(1, 1, testSelector)
		h.addPods(1, 100)
		h.metrics.SetExternal("queue_ok", metricstest.ExternalAnswer{Values: []int64{30000}, Timestamp: testStart})
		err := h.reconcile(testHPAName)
		if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
			t.Fatalf("reconcile error = %v, want the hanging metric's deadline", err)
		}
		// The invalid metric blocks a scale-down only; the healthy one
		// scales up.
		h.assertUpdates(3)
		hpa := h.hpa(testHPAName)
		if got := hpa.Status.CurrentMetrics; len(got) != 2 || got[1].External == nil || got[1].External.Current.Value.Value() != 30 {
			t.Errorf("currentMetrics = %+v, want the healthy metric's value", got)
		}
		if c := conditionOf(t, hpa, autoscalingv2.ScalingActive); c.Reason != "ValidMetricFound" {
			t.Errorf("ScalingActive = %s/%s, want ValidMetricFound from the healthy metric", c.Status, c.Reason)
		}
	})
}

// TestDecidingAgainKeepsTheFetchBudget pins the fetch budget to the pass,
// not to one decision of it: a pass whose scale update conflicts decides
// again with the answers it already has, so a provider that hung until the
// budget is neither asked nor waited for again, and the fresh decision
// still scales on the healthy metric.
func TestDecidingAgainKeepsTheFetchBudget(t *testing.T) {
	var asks atomic.Int32
	h := newHarness(t, newHPA(1, 10, externalValue("queue_hanging", "10"), externalValue("queue_ok", "10")), harnessOptions{
		syncPeriod: 200 * time.Millisecond,
		wrapMetrics: func(c metrics.Client) metrics.Client {
			return providerStub{Client: c, hang: "queue_hanging", asks: &asks}
		},
	})
	h.scales.setScale(1, 1, testSelector)
	h.addPods(1, 100)
	h.metrics.SetExternal("queue_ok", metricstest.ExternalAnswer{Values: []int64{30000}, Timestamp: testStart})
	// Another writer changes the target (not its replicas) between the
	// pass's read and its update.
	versioned(func(v *versionedScales) { v.concurrentWrites = 1 })(h)

	err := h.reconcile(testHPAName)
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Fatalf("reconcile error = %v, want the hanging metric's deadline", err)
	}
	h.assertUpdates(3)
	if got := asks.Load(); got != 1 {
		t.Errorf("the hanging metric was fetched %d times in the pass, want once", got)
	}
	// A provider is only waited for inside an ask: asked once, the pass
	// waited for one budget, not two (no clock reading, which a loaded
	// machine stretches).
}
