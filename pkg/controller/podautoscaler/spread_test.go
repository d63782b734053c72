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
	"fmt"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

func TestSlotKey(t *testing.T) {
	web := hpaKey{namespace: "shop", name: "web"}
	external := func(name string, selector map[string]string) v2.MetricSpec {
		m := externalAverage(name, "10")
		if selector != nil {
			m.External.Metric.Selector = &metav1.LabelSelector{MatchLabels: selector}
		}
		return m
	}
	withNamespace := func(hpa *v2.HorizontalPodAutoscaler, ns string) *v2.HorizontalPodAutoscaler {
		hpa.Namespace = ns
		return hpa
	}
	native := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{Metrics: []autoscalingv2.MetricSpec{{
			Type:     autoscalingv2.ExternalMetricSourceType,
			External: &autoscalingv2.ExternalMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "queue"}},
		}}}}
	cases := []struct {
		name      string
		a, b      any
		keyA      hpaKey
		keyB      hpaKey
		wantEqual bool
	}{
		{name: "two HPAs on one external metric share a slot", wantEqual: true,
			a: withNamespace(newHPA(1, 10, external("queue", nil)), "shop"), keyA: web,
			b: withNamespace(newHPA(1, 10, external("queue", nil)), "shop"), keyB: hpaKey{namespace: "shop", name: "api"}},
		{name: "the first external metric decides, after others", wantEqual: true,
			a: newHPA(1, 10, cpuUtilization(50), external("queue", nil)), keyA: web,
			b: newHPA(1, 10, external("queue", nil), external("other", nil)), keyB: hpaKey{namespace: "shop", name: "api"}},
		{name: "a native and an extended HPA on one metric share a slot", wantEqual: true,
			a: native, keyA: hpaKey{source: 1, namespace: "shop", name: "web"},
			b: withNamespace(newHPA(1, 10, external("queue", nil)), "shop"), keyB: web},
		{name: "another selector is another slot",
			a: newHPA(1, 10, external("queue", map[string]string{"q": "a"})), keyA: web,
			b: newHPA(1, 10, external("queue", map[string]string{"q": "b"})), keyB: web},
		{name: "another namespace is another slot",
			a: newHPA(1, 10, external("queue", nil)), keyA: web,
			b: newHPA(1, 10, external("queue", nil)), keyB: hpaKey{namespace: "billing", name: "web"}},
		{name: "HPAs without an external metric have slots of their own",
			a: newHPA(1, 10, cpuUtilization(50)), keyA: web,
			b: newHPA(1, 10, cpuUtilization(50)), keyB: hpaKey{namespace: "shop", name: "api"}},
		{name: "a native and an extended HPA of one name without external metrics differ",
			a: newHPA(1, 10), keyA: web, b: newHPA(1, 10), keyB: hpaKey{source: 1, namespace: "shop", name: "web"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := slotKey(tc.keyA, tc.a), slotKey(tc.keyB, tc.b)
			if (a == b) != tc.wantEqual {
				t.Errorf("slot keys %q and %q: equal = %t, want %t", a, b, a == b, tc.wantEqual)
			}
		})
	}
}

// slotDelay is how long after testStart (a whole multiple of every period
// here) plus elapsed the HPA named web waits for its first slot after that.
func slotDelay(period, elapsed time.Duration) time.Duration {
	off := cadence.Offset(hpaKey{namespace: testNamespace, name: testHPAName}.String(), period)
	for off <= elapsed {
		off += period
	}
	return off - elapsed
}

var (
	spreadOn         = harnessOptions{spread: true}
	spreadSyncPeriod = harnessOptions{spread: true, gates: syncPeriodOn.gates}
	addAfterWeb      = func(d time.Duration) string { return fmt.Sprintf("AddAfter default/web %v", d) }
)

// TestSpreadQueueing pins what each informer event asks of the queue with
// SpreadReconciles on.
func TestSpreadQueueing(t *testing.T) {
	if testStart.UnixNano()%int64(15*time.Second) != 0 {
		t.Fatal("testStart must be a whole multiple of the periods")
	}
	runQueueingCases(t, []queueingCase{
		{name: "a new HPA is reconciled at once, gate off too", opts: spreadOn,
			event: func(c *Controller) { c.onAdd(0, newHPA(1, 10)) }, want: []string{"Add default/web"}},
		{name: "a status update asks for nothing: it must not bring forward a pass that the last one paced", opts: spreadOn,
			event: func(c *Controller) { c.onUpdate(0, newHPA(1, 10), statusOnly(newHPA(1, 10))) }},
		{name: "HPAGeneration: a new generation is reconciled at once, as v1.37", opts: spreadOn,
			event: func(c *Controller) { c.onUpdate(0, newHPA(1, 10), withGeneration(newHPA(1, 10), 2)) },
			want:  []string{"Add default/web"}},
		{name: "gates off: a spec change waits for the slot", opts: harnessOptions{spread: true, gates: neitherGate.gates},
			event: func(c *Controller) { c.onUpdate(0, newHPA(1, 10), withGeneration(newHPA(1, 10), 2)) },
			want:  []string{addAfterWeb(slotDelay(15*time.Second, 0))}},
		{name: "gate on: a spec change is reconciled at once", opts: spreadSyncPeriod,
			event: func(c *Controller) { c.onUpdate(0, withGeneration(newHPA(1, 10), 1), withGeneration(newHPA(1, 10), 2)) },
			want:  []string{"Add default/web"}},
		{name: "gate on: a status update of a 3s HPA asks for nothing", opts: spreadSyncPeriod,
			event: func(c *Controller) {
				c.onUpdate(0, withSyncPeriod(newHPA(1, 10), 3), statusOnly(withSyncPeriod(newHPA(1, 10), 3)))
			}},
	})
}

// TestSpreadRequeue pins when a reconciled HPA is due again with
// SpreadReconciles on: on its first slot after the start of its pass, so
// that no slot goes without a pass, or one period after a pass that paces
// the next (package cadence), as upstream's.
func TestSpreadRequeue(t *testing.T) {
	onSlot := cadence.Offset(hpaKey{namespace: testNamespace, name: testHPAName}.String(), 15*time.Second)
	cases := []struct {
		name  string
		opts  harnessOptions
		hpa   *v2.HorizontalPodAutoscaler
		scale int32
		start time.Duration // clock step before the pass
		took  time.Duration
		// lasts is how long the pass takes, reading the scale.
		lasts time.Duration
		// recentScaleUp: the controller scaled 2 to 3 right before.
		recentScaleUp bool
		want          string
	}{
		{name: "the first pass, at once, is followed by the HPA's slot", opts: spreadOn,
			want: addAfterWeb(slotDelay(15*time.Second, 0))},
		{name: "a pass that starts on its slot comes back one period later", opts: spreadOn,
			start: onSlot, want: addAfterWeb(15 * time.Second)},
		{name: "a pass that starts late still lands on the slot", opts: spreadOn,
			start: onSlot, took: 5 * time.Second, want: addAfterWeb(10 * time.Second)},
		{name: "a pass that starts over half a period late leaves the next slot its pass", opts: spreadOn,
			start: onSlot, took: 12 * time.Second, want: addAfterWeb(3 * time.Second)},
		{name: "a pass that starts periods late lands on the first slot after its start", opts: spreadOn,
			start: onSlot, took: 40 * time.Second, want: addAfterWeb(5 * time.Second)},
		{name: "a pass that lasts past its next slot is followed at once, by one pass", opts: spreadOn,
			start: onSlot, lasts: 40 * time.Second, want: "Add default/web"},
		{name: "gate on: a 3s HPA lands on its slot of a 3s grid", opts: spreadSyncPeriod,
			hpa:  withSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 3),
			want: addAfterWeb(slotDelay(3*time.Second, 0))},
		{name: "gate on: an HPA stored with the deprecated behavior.syncPeriodSeconds of 2 keeps its 2s grid", opts: spreadSyncPeriod,
			hpa:  withDeprecatedSyncPeriod(newHPA(1, 10, cpuUtilization(50)), 2),
			want: addAfterWeb(slotDelay(2*time.Second, 0))},
		{name: "a pass that rescaled paces the next: one period after it, as upstream's", opts: spreadOn,
			hpa: newHPA(1, 10, cpuUtilization(50)), scale: 12, start: onSlot, want: addAfterWeb(15 * time.Second)},
		{name: "a pass that rescaled off its slot is still followed one period after it", opts: spreadOn,
			hpa: newHPA(1, 10, cpuUtilization(50)), scale: 12, start: onSlot + 4*time.Second, want: addAfterWeb(15 * time.Second)},
		{name: "a pass that rescaled after a long wait is followed one period after it started", opts: spreadOn,
			hpa: newHPA(1, 10, cpuUtilization(50)), scale: 12, start: onSlot, lasts: 6 * time.Second, want: addAfterWeb(9 * time.Second)},
		{name: "a pass that a rate policy held back, without a rescale, paces the next", opts: spreadOn,
			hpa:   withBehavior(newHPA(1, 10, cpuUtilization(50)), onePodPer15s),
			scale: 3, recentScaleUp: true, start: onSlot + 4*time.Second, want: addAfterWeb(15 * time.Second)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hpa := tc.hpa
			if hpa == nil {
				hpa = newHPA(1, 10, cpuUtilization(50))
			}
			h := newHarness(t, hpa, tc.opts)
			h.scales.setScale(max(tc.scale, 3), max(tc.scale, 3), testSelector)
			h.addPods(3, 100)
			h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(100, 100, 100))
			if tc.scale == 0 {
				// Within the target: the pass keeps 3 replicas.
				h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(50, 50, 50))
			}
			h.c.opts.Sources = []HPASource{slowSource{fakeSource: h.source, h: h, took: tc.took}}
			h.c.opts.ScaleClient = slowScales{ScalesGetter: h.scales, h: h, took: tc.lasts}
			h.drainQueue()
			h.clock.Step(tc.start)
			if tc.recentScaleUp {
				h.c.behavior.Commit(h.key(testHPAName).String(), behavior.Effects{Scale: h.c.behavior.Scale(hpa.Spec.Behavior.Native(), 2, 3, time.Time{})})
			}
			h.c.queue.Add(h.key(testHPAName))
			q := recordQueue(h)
			if !h.c.processNextWorkItem(h.ctx) {
				t.Fatal("processNextWorkItem = false")
			}
			// A pass that lasts past a quarter period ends in the slow
			// lane, after the worker is free.
			h.c.inFlight.Wait()
			if got := q.recorded(); !sameStrings(got, []string{tc.want}) {
				t.Errorf("queue calls = %v, want [%s]", got, tc.want)
			}
			if tc.recentScaleUp {
				h.assertUpdates()
			}
		})
	}
}

// TestSlowPassKeepsItsRamp: a pass that takes long (a provider hanging
// until the fetch budget) and scales up records its step at its start, as
// status.lastScaleTime says, so that the pass one period after that start
// may take the next step of a 15s policy, as upstream's next pass does.
func TestSlowPassKeepsItsRamp(t *testing.T) {
	h := newHarness(t, withBehavior(newHPA(1, 10, cpuUtilization(50)), onePodPer15s), spreadOn)
	h.scales.setScale(3, 3, testSelector)
	h.addPods(3, 100)
	h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(100, 100, 100))
	h.c.opts.ScaleClient = slowScales{ScalesGetter: h.scales, h: h, took: 6 * time.Second}
	if err := h.reconcile(testHPAName); err != nil {
		t.Fatal(err)
	}
	// 6s of the pass, and 9s to the start of the next, which is fast.
	h.c.opts.ScaleClient = h.scales
	h.clock.Step(9 * time.Second)
	if err := h.reconcile(testHPAName); err != nil {
		t.Fatal(err)
	}
	h.assertUpdates(4, 5)
}

// slowScales takes took of the fake clock to read a scale, as a pass that
// waits on a slow API would.
type slowScales struct {
	scale.ScalesGetter
	h    *harness
	took time.Duration
}

func (s slowScales) Scales(namespace string) scale.ScaleInterface {
	return slowScaleInterface{ScaleInterface: s.ScalesGetter.Scales(namespace), s: s}
}

type slowScaleInterface struct {
	scale.ScaleInterface
	s slowScales
}

func (s slowScaleInterface) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	s.s.h.clock.Step(s.s.took)
	return s.ScaleInterface.Get(ctx, gr, name, opts)
}

// onePodPer15s is a scale-up policy of one pod per 15 seconds.
var onePodPer15s = &v2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
	Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 15}},
}}

// TestSpreadSharedFetches: spread, an HPA takes a shared answer at most
// half a period old, so that the HPAs of one metric, which pass together,
// share one fetch, and never take the group's answer of the period before.
func TestSpreadSharedFetches(t *testing.T) {
	cases := []struct {
		name        string
		opts        harnessOptions
		gap         time.Duration
		wantFetches int
	}{
		{name: "spread: an answer 7s old is shared", opts: harnessOptions{spread: true, sharingWindow: 15 * time.Second}, gap: 7 * time.Second, wantFetches: 1},
		{name: "spread: an answer 8s old, over half the period, is not", opts: harnessOptions{spread: true, sharingWindow: 15 * time.Second}, gap: 8 * time.Second, wantFetches: 2},
		{name: "not spread: an answer 14s old is shared within the window", opts: harnessOptions{sharingWindow: 15 * time.Second}, gap: 14 * time.Second, wantFetches: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			other := newHPA(1, 10, externalAverage("queue_depth", "10"))
			other.Name = "other"
			h := newHarness(t, newHPA(1, 10, externalAverage("queue_depth", "10")), tc.opts)
			h.addHPA(other)
			h.scales.setScale(3, 3, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Values: []int64{30000}, Timestamp: testStart})
			if err := h.reconcile(testHPAName); err != nil {
				t.Fatal(err)
			}
			h.clock.Step(tc.gap)
			if err := h.reconcile("other"); err != nil {
				t.Fatal(err)
			}
			if got := h.metrics.Calls(metricstest.External, "queue_depth"); got != tc.wantFetches {
				t.Errorf("fetches = %d, want %d", got, tc.wantFetches)
			}
		})
	}
}

// TestSpreadNeverTakesBackItsOwnAnswer: a pass that ran late can be
// followed on the HPA's slot less than half a period later; that pass
// must fetch, not take back the answer of the HPA's own last pass, which
// would tell it nothing new.
func TestSpreadNeverTakesBackItsOwnAnswer(t *testing.T) {
	for _, tc := range []struct {
		name        string
		gap         time.Duration
		wantFetches int
	}{
		{name: "5s after its own pass: fetched again", gap: 5 * time.Second, wantFetches: 2},
		{name: "a whole period after its own pass: fetched again", gap: 15 * time.Second, wantFetches: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 10, externalAverage("queue_depth", "10")), harnessOptions{spread: true, sharingWindow: 15 * time.Second})
			h.scales.setScale(3, 3, testSelector)
			h.metrics.SetExternal("queue_depth", metricstest.ExternalAnswer{Values: []int64{30000}, Timestamp: testStart})
			h.drainQueue()
			for range 2 {
				h.c.queue.Add(h.key(testHPAName))
				if !h.c.processNextWorkItem(h.ctx) {
					t.Fatal("processNextWorkItem = false")
				}
				h.clock.Step(tc.gap)
			}
			if got := h.metrics.Calls(metricstest.External, "queue_depth"); got != tc.wantFetches {
				t.Errorf("fetches = %d, want %d", got, tc.wantFetches)
			}
		})
	}
}

func TestPassLogMaxAge(t *testing.T) {
	key := hpaKey{namespace: "shop", name: "web"}
	for _, tc := range []struct {
		name   string
		ended  time.Duration // before now; negative: never
		forget bool
		want   time.Duration
	}{
		{name: "an HPA without a pass takes the limit", ended: -1, want: 7 * time.Second},
		{name: "a last pass longer ago than the limit: the limit", ended: 20 * time.Second, want: 7 * time.Second},
		{name: "a last pass 3s ago: nothing older than 3s", ended: 3 * time.Second, want: 3 * time.Second},
		{name: "a last pass that ended now: nothing shared", ended: 0, want: 0},
		{name: "a forgotten HPA takes the limit", ended: 3 * time.Second, forget: true, want: 7 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newPassLog()
			if tc.ended >= 0 {
				l.ended(key, testStart.Add(-tc.ended), cadence.PassedFast)
			}
			if tc.forget {
				l.forget(key)
			}
			if got := l.maxAge(key, testStart, 7*time.Second); got != tc.want {
				t.Errorf("maxAge = %v, want %v", got, tc.want)
			}
		})
	}
}
