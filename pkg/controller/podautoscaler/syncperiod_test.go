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
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// KEP-6003: each HPA's own sync period, behind HPAConfigurableSyncPeriod.

var (
	syncPeriodOn  = withGates(features.HPAConfigurableSyncPeriod, true)
	syncPeriodOff = withGates(features.HPAConfigurableSyncPeriod, false)
	// Without v1.37's HPAGeneration, to pin what KEP-6003 alone does.
	syncPeriodOnly = withGates(features.HPAConfigurableSyncPeriod, true, features.HPAGeneration, false)
	neitherGate    = withGates(features.HPAConfigurableSyncPeriod, false, features.HPAGeneration, false)
)

// withSyncPeriod sets spec.syncPeriodSeconds.
func withSyncPeriod(hpa *v2.HorizontalPodAutoscaler, seconds int32) *v2.HorizontalPodAutoscaler {
	hpa.Spec.SyncPeriodSeconds = ptr.To(seconds)
	return hpa
}

// withDeprecatedSyncPeriod sets behavior.syncPeriodSeconds, where KEP-6003
// first put the field: an HPA stored with it keeps its period.
func withDeprecatedSyncPeriod(hpa *v2.HorizontalPodAutoscaler, seconds int32) *v2.HorizontalPodAutoscaler {
	if hpa.Spec.Behavior == nil {
		hpa.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{}
	}
	hpa.Spec.Behavior.SyncPeriodSeconds = ptr.To(seconds)
	return hpa
}

// statusOnly changes hpa as the controller's own status write does.
func statusOnly(hpa *v2.HorizontalPodAutoscaler) *v2.HorizontalPodAutoscaler {
	hpa.Status.DesiredReplicas = 3
	return hpa
}

// withGeneration sets metadata.generation, which the API server bumps on
// every spec change of an extended HPA.
func withGeneration(hpa *v2.HorizontalPodAutoscaler, generation int64) *v2.HorizontalPodAutoscaler {
	hpa.Generation = generation
	return hpa
}

func TestSyncPeriodOf(t *testing.T) {
	cases := []struct {
		name string
		opts harnessOptions
		hpa  *v2.HorizontalPodAutoscaler
		want time.Duration
	}{
		{name: "gate on: syncPeriodSeconds is the period", opts: syncPeriodOn, hpa: withSyncPeriod(newHPA(1, 10), 3), want: 3 * time.Second},
		{name: "gate on: one hour is the longest period", opts: syncPeriodOn, hpa: withSyncPeriod(newHPA(1, 10), 3600), want: time.Hour},
		{name: "gate on: without syncPeriodSeconds the global period applies", opts: syncPeriodOn, hpa: newHPA(1, 10), want: 15 * time.Second},
		{name: "gate on: a stored 0 is out of range and the global period applies", opts: syncPeriodOn, hpa: withSyncPeriod(newHPA(1, 10), 0), want: 15 * time.Second},
		{name: "gate on: a stored 3601 is out of range and the global period applies", opts: syncPeriodOn, hpa: withSyncPeriod(newHPA(1, 10), 3601), want: 15 * time.Second},
		{name: "gate off: syncPeriodSeconds is ignored", opts: syncPeriodOff, hpa: withSyncPeriod(newHPA(1, 10), 3), want: 15 * time.Second},
		{name: "gate on: a stored deprecated behavior.syncPeriodSeconds keeps its period", opts: syncPeriodOn, hpa: withDeprecatedSyncPeriod(newHPA(1, 10), 2), want: 2 * time.Second},
		{name: "gate on: spec.syncPeriodSeconds wins over the deprecated field", opts: syncPeriodOn, hpa: withDeprecatedSyncPeriod(withSyncPeriod(newHPA(1, 10), 30), 2), want: 30 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, tc.opts)
			if got := h.c.syncPeriodOf(tc.hpa); got != tc.want {
				t.Errorf("syncPeriodOf = %v, want %v", got, tc.want)
			}
			if got := h.c.syncPeriodOfObject(tc.hpa); got != tc.want {
				t.Errorf("syncPeriodOfObject = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("a native HPA has the global period", func(t *testing.T) {
		h := newHarness(t, nil, syncPeriodOn)
		if got := h.c.syncPeriodOfObject(&autoscalingv2.HorizontalPodAutoscaler{}); got != 15*time.Second {
			t.Errorf("syncPeriodOfObject = %v, want 15s", got)
		}
	})
}

// TestSyncPeriodEventsQueueing pins what each informer event asks of the
// queue, gate on (KEP-6003) and off (upstream).
func TestSyncPeriodEventsQueueing(t *testing.T) {
	fast := func() *v2.HorizontalPodAutoscaler { return withGeneration(withSyncPeriod(newHPA(1, 10), 3), 1) }
	hourly := func() *v2.HorizontalPodAutoscaler { return withGeneration(withSyncPeriod(newHPA(1, 10), 3600), 1) }
	nativeHPA := func(maxReplicas int32) *autoscalingv2.HorizontalPodAutoscaler {
		return &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: newHPA(1, 10).ObjectMeta,
			Spec:       autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: maxReplicas},
		}
	}
	runQueueingCases(t, []queueingCase{
		{name: "gate off: a new HPA is reconciled at once, as v1.37", opts: syncPeriodOff,
			event: func(c *Controller) { c.onAdd(0, fast()) }, want: []string{"Add default/web"}},
		{name: "gates off: a spec change waits for the period", opts: neitherGate,
			event: func(c *Controller) { c.onUpdate(0, fast(), withGeneration(fast(), 2)) }, want: []string{"AddRateLimited default/web"}},
		{name: "HPAGeneration: a spec change (new generation) is reconciled at once, as v1.37", opts: syncPeriodOff,
			event: func(c *Controller) { c.onUpdate(0, fast(), withGeneration(fast(), 2)) }, want: []string{"Add default/web"}},
		{name: "HPAGeneration: a native HPA's new generation is reconciled at once", opts: syncPeriodOff,
			event: func(c *Controller) {
				cur := nativeHPA(20)
				cur.Generation = 2
				c.onUpdate(0, nativeHPA(10), cur)
			}, want: []string{"Add default/web"}},
		{name: "HPAGeneration: a native HPA's spec change without a generation (an older API server) waits for the period", opts: syncPeriodOff,
			event: func(c *Controller) { c.onUpdate(0, nativeHPA(10), nativeHPA(20)) }, want: []string{"AddRateLimited default/web"}},
		{name: "gate off: a status update waits for the period", opts: syncPeriodOff,
			event: func(c *Controller) { c.onUpdate(0, fast(), statusOnly(fast())) }, want: []string{"AddRateLimited default/web"}},
		{name: "gate off: a delete only forgets", opts: syncPeriodOff,
			event: func(c *Controller) { c.onDelete(0, fast()) }, want: []string{"Forget default/web"}},
		{name: "gate on: a new HPA is reconciled at once", opts: syncPeriodOn,
			event: func(c *Controller) { c.onAdd(0, fast()) }, want: []string{"Add default/web"}},
		{name: "gate on: a spec change (new generation) is reconciled at once", opts: syncPeriodOnly,
			event: func(c *Controller) { c.onUpdate(0, fast(), withGeneration(fast(), 2)) }, want: []string{"Add default/web"}},
		{name: "gate on: a status update asks for the HPA's own period", opts: syncPeriodOn,
			event: func(c *Controller) { c.onUpdate(0, fast(), statusOnly(fast())) }, want: []string{"AddAfter default/web 3s"}},
		{name: "gate on: a status update of an hourly HPA does not bring it back within the hour", opts: syncPeriodOn,
			event: func(c *Controller) { c.onUpdate(0, hourly(), statusOnly(hourly())) }, want: []string{"AddAfter default/web 1h0m0s"}},
		{name: "gate on: a status update of an HPA without a period asks for the global one", opts: syncPeriodOn,
			event: func(c *Controller) { c.onUpdate(0, newHPA(1, 10), statusOnly(newHPA(1, 10))) }, want: []string{"AddAfter default/web 15s"}},
		{name: "gate on: a native HPA's spec change is seen without a generation", opts: syncPeriodOnly,
			event: func(c *Controller) { c.onUpdate(0, nativeHPA(10), nativeHPA(20)) }, want: []string{"Add default/web"}},
		{name: "gate on: a native HPA's status update asks for the global period", opts: syncPeriodOn,
			event: func(c *Controller) {
				cur := nativeHPA(10)
				cur.Status.DesiredReplicas = 4
				c.onUpdate(0, nativeHPA(10), cur)
			}, want: []string{"AddAfter default/web 15s"}},
		{name: "gate on: a deleted HPA is reconciled at once to drop its state", opts: syncPeriodOn,
			event: func(c *Controller) { c.onDelete(0, fast()) }, want: []string{"Forget default/web", "Add default/web"}},
	})
}

// queueingCase is an informer event and the queue calls it must make.
type queueingCase struct {
	name  string
	opts  harnessOptions
	event func(c *Controller)
	want  []string
}

func runQueueingCases(t *testing.T, cases []queueingCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, tc.opts)
			q := recordQueue(h)
			tc.event(h.c)
			if got := q.recorded(); !sameStrings(got, tc.want) {
				t.Errorf("queue calls = %v, want %v", got, tc.want)
			}
		})
	}
}

// slowSource takes took of the fake clock to read an HPA, as a pass that
// waits on a slow API would.
type slowSource struct {
	*fakeSource
	h    *harness
	took time.Duration
}

func (s slowSource) Get(namespace, name string) (*v2.HorizontalPodAutoscaler, bool, error) {
	s.h.clock.Step(s.took)
	return s.fakeSource.Get(namespace, name)
}

// TestSyncPeriodRequeue pins when a reconciled HPA is due again: with the
// gate on, one period of its own after its pass, however long the pass took.
func TestSyncPeriodRequeue(t *testing.T) {
	cases := []struct {
		name string
		opts harnessOptions
		hpa  *v2.HorizontalPodAutoscaler
		took time.Duration
		want []string
	}{
		{name: "gate on: a 3s HPA comes back 3s after its pass", opts: syncPeriodOn,
			hpa: withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3), want: []string{"AddAfter default/web 3s"}},
		{name: "gate on: a pass longer than the period is followed by one period, not by a backlog", opts: syncPeriodOn,
			hpa: withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3), took: 4 * time.Second, want: []string{"AddAfter default/web 3s"}},
		{name: "gate on: without syncPeriodSeconds the global period applies", opts: syncPeriodOn,
			hpa: newHPA(1, 10, cpuUtilization(50)), want: []string{"AddAfter default/web 15s"}},
		{name: "gate off: syncPeriodSeconds is ignored and the HPA waits the global period", opts: syncPeriodOff,
			hpa: withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3), want: []string{"AddRateLimited default/web"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.hpa, tc.opts)
			h.scales.setScale(3, 3, testSelector)
			h.c.opts.Sources = []HPASource{slowSource{fakeSource: h.source, h: h, took: tc.took}}
			h.drainQueue()
			h.c.queue.Add(h.key(testHPAName))
			q := recordQueue(h)
			if !h.c.processNextWorkItem(h.ctx) {
				t.Fatal("processNextWorkItem = false")
			}
			if got := q.recorded(); !sameStrings(got, tc.want) {
				t.Errorf("queue calls = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("gate on: a slow pass and its status update queue the HPA once", func(t *testing.T) {
		hpa := withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3)
		h := newHarness(t, hpa, syncPeriodOn)
		h.scales.setScale(3, 3, testSelector)
		h.c.opts.Sources = []HPASource{slowSource{fakeSource: h.source, h: h, took: 5 * time.Second}}
		h.drainQueue()
		h.c.queue.Add(h.key(testHPAName))
		h.c.processNextWorkItem(h.ctx)
		// The informer delivers the pass's status write.
		h.c.onUpdate(0, hpa, h.hpa(testHPAName))
		waitReady(t, h, 1, 500*time.Millisecond)
		// A second slow pass, and its status update, add nothing more.
		h.c.processNextWorkItem(h.ctx)
		h.c.onUpdate(0, hpa, h.hpa(testHPAName))
		h.clock.Step(10 * time.Second)
		waitReady(t, h, 1, 500*time.Millisecond)
		settle()
		if n := h.c.queue.Len(); n != 1 {
			t.Errorf("queue length = %d, want the HPA once", n)
		}
	})
}

// TestSyncPeriodTiming drives the real queue on the fake clock: an HPA of
// 2 s comes back every 2 s, one of an hour not before the hour, and with
// the gate on a new HPA is ready at once.
func TestSyncPeriodTiming(t *testing.T) {
	t.Run("gate on: a new HPA is ready at once", func(t *testing.T) {
		h := newHarness(t, withSyncPeriod(newHPA(1, 10), 60), syncPeriodOn)
		if n := h.c.queue.Len(); n != 1 {
			t.Errorf("queue length right after the add = %d, want 1", n)
		}
	})
	t.Run("gate on: a 3s HPA is ready again 3s after its pass", func(t *testing.T) {
		h := newHarness(t, withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3), syncPeriodOn)
		h.scales.setScale(3, 3, testSelector)
		h.c.processNextWorkItem(h.ctx)
		settle()
		if n := h.c.queue.Len(); n != 0 {
			t.Fatalf("queue length right after the pass = %d, want 0", n)
		}
		waitReady(t, h, 1, 500*time.Millisecond)
		checkReadyAfter(t, h, 3*time.Second, 500*time.Millisecond)
	})
	t.Run("gate on: an hourly HPA whose status changed is not ready before the hour", func(t *testing.T) {
		hpa := withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3600)
		h := newHarness(t, hpa, syncPeriodOn)
		h.scales.setScale(3, 3, testSelector)
		h.c.processNextWorkItem(h.ctx)
		h.c.onUpdate(0, hpa, h.hpa(testHPAName))
		h.clock.Step(59 * time.Minute)
		settle()
		if n := h.c.queue.Len(); n != 0 {
			t.Fatalf("queue length 59 minutes after the pass = %d, want 0", n)
		}
		waitReady(t, h, 1, time.Minute)
		checkReadyAfter(t, h, time.Hour, time.Minute)
	})
}

// TestSyncPeriodMetric: the effective period is exposed per HPA with the
// gate on, never with it off, and goes with the HPA.
func TestSyncPeriodMetric(t *testing.T) {
	cases := []struct {
		name string
		opts harnessOptions
		hpa  *v2.HorizontalPodAutoscaler
		want map[string]time.Duration
	}{
		{name: "gate on: the HPA's own period", opts: syncPeriodOn, hpa: withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3),
			want: map[string]time.Duration{"default/web": 3 * time.Second}},
		{name: "gate on: the global period of an HPA without one", opts: syncPeriodOn, hpa: newHPA(1, 10, cpuUtilization(50)),
			want: map[string]time.Duration{"default/web": 15 * time.Second}},
		{name: "gate on: an invalid spec still reports its period", opts: syncPeriodOn, hpa: withSyncPeriod(newHPA(5, 1, cpuUtilization(50)), 30),
			want: map[string]time.Duration{"default/web": 30 * time.Second}},
		{name: "gate off: no series", opts: syncPeriodOff, hpa: withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.hpa, tc.opts)
			h.scales.setScale(3, 3, testSelector)
			_ = h.reconcile(testHPAName)
			if len(h.monitor.periods) != len(tc.want) {
				t.Fatalf("periods = %v, want %v", h.monitor.periods, tc.want)
			}
			for k, v := range tc.want {
				if h.monitor.periods[k] != v {
					t.Errorf("periods = %v, want %v", h.monitor.periods, tc.want)
				}
			}
		})
	}
	t.Run("gate on: a deleted HPA's period goes with it", func(t *testing.T) {
		h := newHarness(t, withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3), syncPeriodOn)
		h.scales.setScale(3, 3, testSelector)
		_ = h.reconcile(testHPAName)
		h.source.delete(testNamespace, testHPAName)
		_ = h.reconcile(testHPAName)
		if len(h.monitor.periods) != 0 {
			t.Errorf("periods after the delete = %v, want none", h.monitor.periods)
		}
	})
}

// TestSyncPeriodSharedFetches: HPAs asking for one external metric share
// its fetches across periods: the 3s HPA never takes an answer older than
// 3s, and the 15s HPA takes the 3s HPA's fresher one. With the gate off
// both share the window.
func TestSyncPeriodSharedFetches(t *testing.T) {
	cases := []struct {
		name        string
		opts        harnessOptions
		wantFetches int
	}{
		// slow fetches; web finds it 4s old, too old for its 3s, and
		// fetches; slow takes web's; web fetches again, 4s later.
		{name: "gate on: the 3s HPA takes no answer older than 3s and the 15s HPA shares its fresher one", opts: syncPeriodOn, wantFetches: 3},
		{name: "gate off: both share one fetch per window", opts: syncPeriodOff, wantFetches: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.sharingWindow = 15 * time.Second
			fast := withSyncPeriod(newHPA(1, 10, externalAverage("queue_depth", "10")), 3)
			slow := newHPA(1, 10, externalAverage("queue_depth", "10"))
			slow.Name = "slow"
			h := newHarness(t, fast, opts)
			h.addHPA(slow)
			h.scales.setScale(3, 3, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Values: []int64{30000}, Timestamp: testStart})
			for _, step := range []struct {
				after time.Duration
				hpa   string
			}{{0, "slow"}, {4 * time.Second, testHPAName}, {time.Second, "slow"}, {4 * time.Second, testHPAName}} {
				h.clock.Step(step.after)
				if err := h.reconcile(step.hpa); err != nil {
					t.Fatalf("reconcile %s: %v", step.hpa, err)
				}
			}
			if got := h.metrics.Calls(metricstest.External, "queue_depth"); got != tc.wantFetches {
				t.Errorf("fetches = %d, want %d", got, tc.wantFetches)
			}
		})
	}
}
