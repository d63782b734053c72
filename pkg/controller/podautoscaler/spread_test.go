package podautoscaler

import (
	"fmt"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

func TestNextSlot(t *testing.T) {
	// 1500 s after the epoch is a whole multiple of 15 s.
	base := time.Unix(1500, 0)
	cases := []struct {
		name     string
		earliest time.Time
		period   time.Duration
		offset   time.Duration
		want     time.Time
	}{
		{name: "an instant on a slot is its own slot", earliest: base.Add(4 * time.Second), period: 15 * time.Second, offset: 4 * time.Second, want: base.Add(4 * time.Second)},
		{name: "an instant before the slot waits for it", earliest: base, period: 15 * time.Second, offset: 4 * time.Second, want: base.Add(4 * time.Second)},
		{name: "an instant just past the slot waits a whole period", earliest: base.Add(4*time.Second + 1), period: 15 * time.Second, offset: 4 * time.Second, want: base.Add(19 * time.Second)},
		{name: "offset zero is the whole multiples of the period", earliest: base.Add(time.Second), period: 15 * time.Second, want: base.Add(15 * time.Second)},
		{name: "a one hour period counts from the epoch too", earliest: time.Unix(3600*10+1, 0), period: time.Hour, offset: 30 * time.Minute, want: time.Unix(3600*10+1800, 0)},
		{name: "an instant before the epoch", earliest: time.Unix(-7, 0), period: 15 * time.Second, offset: 4 * time.Second, want: time.Unix(4, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := nextSlot(tc.earliest, tc.period, tc.offset); !got.Equal(tc.want) {
				t.Errorf("nextSlot = %v, want %v", got.Sub(tc.earliest), tc.want.Sub(tc.earliest))
			}
		})
	}
}

func TestSpreadOffset(t *testing.T) {
	t.Run("a slot key keeps its offset", func(t *testing.T) {
		if a, b := spreadOffset("shop/web", 15*time.Second), spreadOffset("shop/web", 15*time.Second); a != b {
			t.Errorf("offsets %v and %v of one key", a, b)
		}
	})
	t.Run("offsets fall within the period", func(t *testing.T) {
		for _, period := range []time.Duration{time.Second, 15 * time.Second, time.Hour} {
			for i := range 200 {
				if off := spreadOffset(fmt.Sprintf("ns/%d", i), period); off < 0 || off >= period {
					t.Fatalf("offset %v outside a period of %v", off, period)
				}
			}
		}
	})
	t.Run("HPAs spread evenly over the period", func(t *testing.T) {
		// 1,500 HPAs over 15 one-second buckets: 100 each on average.
		var buckets [15]int
		for i := range 1500 {
			buckets[spreadOffset(hpaKey{namespace: "ns", name: fmt.Sprintf("hpa-%d", i)}.String(), 15*time.Second)/time.Second]++
		}
		for second, n := range buckets {
			if n < 60 || n > 140 {
				t.Errorf("%d HPAs due in second %d of the period, want about 100: %v", n, second, buckets)
			}
		}
	})
}

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
// here) plus elapsed the HPA named web waits for its slot: its offset, or
// one period more when the offset is less than half a period away.
func slotDelay(period, elapsed time.Duration) time.Duration {
	off := spreadOffset(hpaKey{namespace: testNamespace, name: testHPAName}.String(), period)
	for off < elapsed+period/2 {
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
		{name: "a status update asks for the HPA's next slot", opts: spreadOn,
			event: func(c *Controller) { c.onUpdate(0, newHPA(1, 10), statusOnly(newHPA(1, 10))) },
			want:  []string{addAfterWeb(slotDelay(15*time.Second, 0))}},
		{name: "gate off: a spec change waits for the slot", opts: spreadOn,
			event: func(c *Controller) { c.onUpdate(0, newHPA(1, 10), withGeneration(newHPA(1, 10), 2)) },
			want:  []string{addAfterWeb(slotDelay(15*time.Second, 0))}},
		{name: "gate on: a spec change is reconciled at once", opts: spreadSyncPeriod,
			event: func(c *Controller) { c.onUpdate(0, withGeneration(newHPA(1, 10), 1), withGeneration(newHPA(1, 10), 2)) },
			want:  []string{"Add default/web"}},
		{name: "gate on: a status update of a 2s HPA asks for its slot of a 2s grid", opts: spreadSyncPeriod,
			event: func(c *Controller) {
				c.onUpdate(0, withSyncPeriod(newHPA(1, 10), 2), statusOnly(withSyncPeriod(newHPA(1, 10), 2)))
			},
			want: []string{addAfterWeb(slotDelay(2*time.Second, 0))}},
	})
}

// TestSpreadRequeue pins when a reconciled HPA is due again with
// SpreadReconciles on: on its next slot at least half a period after the
// pass, so that a pass that starts on its slot comes back one period later.
func TestSpreadRequeue(t *testing.T) {
	onSlot := spreadOffset(hpaKey{namespace: testNamespace, name: testHPAName}.String(), 15*time.Second)
	cases := []struct {
		name  string
		opts  harnessOptions
		start time.Duration // clock step before the pass
		took  time.Duration
		want  string
	}{
		{name: "the first pass, at once, is followed by the HPA's slot", opts: spreadOn,
			want: addAfterWeb(slotDelay(15*time.Second, 0))},
		{name: "a pass that starts on its slot comes back one period later", opts: spreadOn,
			start: onSlot, want: addAfterWeb(15 * time.Second)},
		{name: "a slow pass still lands on the slot", opts: spreadOn,
			start: onSlot, took: 5 * time.Second, want: addAfterWeb(10 * time.Second)},
		{name: "gate on: a 2s HPA lands on its slot of a 2s grid", opts: spreadSyncPeriod,
			want: addAfterWeb(slotDelay(2*time.Second, 0))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hpa := newHPA(1, 10, cpuUtilization(50))
			if tc.opts.gates != nil {
				hpa = withSyncPeriod(hpa, 2)
			}
			h := newHarness(t, hpa, tc.opts)
			h.scales.setScale(3, 3, testSelector)
			h.c.opts.Sources = []HPASource{slowSource{fakeSource: h.source, h: h, took: tc.took}}
			h.drainQueue()
			h.clock.Step(tc.start)
			h.c.queue.Add(h.key(testHPAName))
			q := recordQueue(h)
			if !h.c.processNextWorkItem(h.ctx) {
				t.Fatal("processNextWorkItem = false")
			}
			if got := q.recorded(); !sameStrings(got, []string{tc.want}) {
				t.Errorf("queue calls = %v, want [%s]", got, tc.want)
			}
		})
	}
}

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
