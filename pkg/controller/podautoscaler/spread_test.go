package podautoscaler

import (
	"fmt"
	"testing"
	"time"
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
	t.Run("an HPA keeps its offset", func(t *testing.T) {
		key := hpaKey{namespace: "shop", name: "web"}
		if a, b := spreadOffset(key, 15*time.Second), spreadOffset(key, 15*time.Second); a != b {
			t.Errorf("offsets %v and %v of one key", a, b)
		}
	})
	t.Run("offsets fall within the period", func(t *testing.T) {
		for _, period := range []time.Duration{time.Second, 15 * time.Second, time.Hour} {
			for i := range 200 {
				if off := spreadOffset(hpaKey{namespace: "ns", name: fmt.Sprint(i)}, period); off < 0 || off >= period {
					t.Fatalf("offset %v outside a period of %v", off, period)
				}
			}
		}
	})
	t.Run("HPAs spread evenly over the period", func(t *testing.T) {
		// 1,500 HPAs over 15 one-second buckets: 100 each on average.
		var buckets [15]int
		for i := range 1500 {
			buckets[spreadOffset(hpaKey{namespace: "ns", name: fmt.Sprintf("hpa-%d", i)}, 15*time.Second)/time.Second]++
		}
		for second, n := range buckets {
			if n < 60 || n > 140 {
				t.Errorf("%d HPAs due in second %d of the period, want about 100: %v", n, second, buckets)
			}
		}
	})
	t.Run("a native and an extended HPA of one name have offsets of their own", func(t *testing.T) {
		if spreadOffset(hpaKey{source: 0, namespace: "ns", name: "web"}, time.Hour) == spreadOffset(hpaKey{source: 1, namespace: "ns", name: "web"}, time.Hour) {
			t.Error("the two kinds share an offset")
		}
	})
}

// slotDelay is how long after testStart (a whole multiple of every period
// here) plus elapsed the HPA named web waits for its slot: its offset, or
// one period more when the offset is less than half a period away.
func slotDelay(period, elapsed time.Duration) time.Duration {
	off := spreadOffset(hpaKey{namespace: testNamespace, name: testHPAName}, period)
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
	onSlot := spreadOffset(hpaKey{namespace: testNamespace, name: testHPAName}, 15*time.Second)
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
