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
	"hash/fnv"
	"time"
)

// Spread, each HPA is due on a grid of its own: its period apart, shifted
// by a stable offset, counted from the Unix epoch so that the offset
// survives restarts and leader changes. The offset is a hash of the HPA's
// slot key: the HPAs of one key (those that share an External metric)
// pass together, and one fetch serves them all, while the others spread
// over the period, so that the API server and the metrics provider see an
// even rate instead of one burst per period.

// SlotWidth is the grain of the offsets: the HPAs whose offsets fall in one
// width pass together. Spread to the nanosecond, 1,000 HPAs at 15s wake the
// process 67 times a second, and the wake-ups cost more CPU than the
// passes; in batches the process sleeps between them, while the API server
// and the provider still see an even rate from one second to the next.
const SlotWidth = time.Second

// Offset is where within period the HPAs of slotKey are due: a hash, so
// that offsets are uniform over the period and stable, rounded down to a
// whole SlotWidth.
func Offset(slotKey string, period time.Duration) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(slotKey))
	offset := time.Duration(h.Sum64() % uint64(period))
	return offset - offset%SlotWidth
}

// NextSlot is the first instant at or after earliest that lies offset past
// a whole multiple of period since the Unix epoch.
func NextSlot(earliest time.Time, period, offset time.Duration) time.Time {
	into := (earliest.UnixNano() - int64(offset)) % int64(period)
	if into < 0 {
		into += int64(period)
	}
	if into == 0 {
		return earliest
	}
	return earliest.Add(period - time.Duration(into))
}

// slotAfter is the HPA's first slot strictly after t: a pass that starts
// on its slot is next due one period later, and one that ran late, or
// long, still leaves the next slot its pass, so that no HPA misses a
// period because another pass was late; one that overran its next slot is
// followed at once, by one pass, not a backlog.
func (h HPA) slotAfter(t time.Time) time.Time {
	return NextSlot(t.Add(1), h.Period, Offset(h.SlotKey, h.Period))
}
