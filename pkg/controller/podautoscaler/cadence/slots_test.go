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

package cadence

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
			if got := NextSlot(tc.earliest, tc.period, tc.offset); !got.Equal(tc.want) {
				t.Errorf("NextSlot = %v, want %v", got.Sub(tc.earliest), tc.want.Sub(tc.earliest))
			}
		})
	}
}

func TestOffset(t *testing.T) {
	t.Run("a slot key keeps its offset", func(t *testing.T) {
		if a, b := Offset("shop/web", 15*time.Second), Offset("shop/web", 15*time.Second); a != b {
			t.Errorf("offsets %v and %v of one key", a, b)
		}
	})
	t.Run("offsets fall within the period", func(t *testing.T) {
		for _, period := range []time.Duration{time.Second, 15 * time.Second, time.Hour} {
			for i := range 200 {
				if off := Offset(fmt.Sprintf("ns/%d", i), period); off < 0 || off >= period {
					t.Fatalf("offset %v outside a period of %v", off, period)
				}
			}
		}
	})
	t.Run("offsets are whole slot widths, so that the HPAs of one second pass together", func(t *testing.T) {
		seen := map[time.Duration]bool{}
		for i := range 200 {
			off := Offset(fmt.Sprintf("ns/%d", i), 15*time.Second)
			if off%SlotWidth != 0 {
				t.Fatalf("offset %v is not a whole number of %v", off, SlotWidth)
			}
			seen[off] = true
		}
		if len(seen) != 15 {
			t.Errorf("200 HPAs landed on %d distinct slots of a 15s period, want all 15", len(seen))
		}
	})
	t.Run("a period shorter than a slot width has one slot", func(t *testing.T) {
		for i := range 50 {
			if off := Offset(fmt.Sprintf("ns/%d", i), 250*time.Millisecond); off != 0 {
				t.Fatalf("offset %v in a 250ms period, want 0", off)
			}
		}
	})
	t.Run("HPAs spread evenly over the period", func(t *testing.T) {
		// 1,500 HPAs over 15 one-second buckets: 100 each on average.
		var buckets [15]int
		for i := range 1500 {
			buckets[Offset(fmt.Sprintf("ns/hpa-%d", i), 15*time.Second)/time.Second]++
		}
		for second, n := range buckets {
			if n < 60 || n > 140 {
				t.Errorf("%d HPAs due in second %d of the period, want about 100: %v", n, second, buckets)
			}
		}
	})
}
