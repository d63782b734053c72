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
	"hash/fnv"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Spreading reconciles over the period (Options.SpreadReconciles). Upstream
// queues every HPA one period after its last pass, so the HPAs listed at
// start stay one burst per period: the API server and the metrics provider
// see a spike of every HPA's requests, and a metric change waits up to a
// period behind it. Spread, each HPA is due on a grid of its own, its
// period apart and shifted by a stable offset; the grid counts from the
// Unix epoch, so the offset survives restarts and leader changes.
//
// The offset is a hash of the HPA's first External metric (namespace, name
// and selector) when it has one, else of its key: HPAs that share a metric
// pass together, so that one fetch serves them all, fresh, while distinct
// metrics and the other HPAs spread over the period. Apart, each would
// take an answer fetched up to a window earlier by another, and act on a
// change that much later.

// cadence is when an HPA is due again: every period, on the slot of its
// slot key when spread; last is the timing of the pass just made, if any.
type cadence struct {
	period  time.Duration
	slotKey string
	last    passTiming
}

// cadenceOf is the cadence of obj, an HPA of a source's informer (native
// or extended) or a source's copy. The slot key is only worked out when
// reconciles are spread: it is on every pass's path.
func (c *Controller) cadenceOf(key hpaKey, obj any) cadence {
	next := cadence{period: c.syncPeriodOfObject(obj)}
	if c.opts.SpreadReconciles {
		next.slotKey = slotKey(key, obj)
	}
	return next
}

// slotKey is what the HPA's offset is taken from.
func slotKey(key hpaKey, obj any) string {
	id := firstExternalMetric(obj)
	if id == nil {
		return key.String()
	}
	slot := "external/" + key.namespace + "/" + id.Name + "/" + metav1.FormatLabelSelector(id.Selector)
	if group := id.SourceGroup(); group != "" {
		// The same name from another source is another metric, fetched
		// on its own: it earns no shared slot.
		slot += "@" + group
	}
	return slot
}

// firstExternalMetric returns the metric of the HPA's first External
// source, or nil.
func firstExternalMetric(obj any) *v2.MetricIdentifier {
	switch hpa := obj.(type) {
	case *v2.HorizontalPodAutoscaler:
		for _, m := range hpa.Spec.Metrics {
			if m.External != nil {
				return &m.External.Metric
			}
		}
	case *autoscalingv2.HorizontalPodAutoscaler:
		for _, m := range hpa.Spec.Metrics {
			if m.External != nil {
				id := v2.IdentifierFromNative(m.External.Metric)
				return &id
			}
		}
	}
	return nil
}

// slotWidth is the grain of the offsets: the HPAs whose offsets fall in one
// width pass together, a second's worth at a time. Spread to the
// nanosecond, 1,000 HPAs at 15s wake the process 67 times a second, and
// waking (the Go scheduler, the HTTP/2 connection, the kernel's context
// switches) cost more CPU than the passes themselves; in batches the
// process sleeps between them, while the API server and the metrics
// provider still see an even rate from one second to the next.
const slotWidth = time.Second

// spreadOffset is where within period the HPAs of slotKey are due: a hash,
// so that offsets are uniform over the period and stable, rounded down to
// a whole slotWidth.
func spreadOffset(slotKey string, period time.Duration) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(slotKey))
	offset := time.Duration(h.Sum64() % uint64(period))
	return offset - offset%slotWidth
}

// nextSlot returns the first instant at or after earliest that lies offset
// past a whole multiple of period since the Unix epoch.
func nextSlot(earliest time.Time, period, offset time.Duration) time.Time {
	into := (earliest.UnixNano() - int64(offset)) % int64(period)
	if into < 0 {
		into += int64(period)
	}
	if into == 0 {
		return earliest
	}
	return earliest.Add(period - time.Duration(into))
}

// untilSlot is how long an HPA of cadence next waits from now for its
// first slot after the start of its last pass (or after now, without one):
// a pass that starts on its slot is next due one period later, and one
// that ran late, or long, still leaves the next slot its pass, so that no
// HPA misses a period because another pass was late. A pass that overran
// its next slot is followed at once, by one pass, not a backlog.
func (n cadence) untilSlot(now time.Time) time.Duration {
	after := now
	if !n.last.start.IsZero() {
		after = n.last.start
	}
	return max(nextSlot(after.Add(1), n.period, spreadOffset(n.slotKey, n.period)).Sub(now), 0)
}

// SpreadOffset is where, within period, the passes of hpa (an HPA of the
// source at sourceIndex of Options.Sources, native or extended) land when
// reconciles are spread, counted from the Unix epoch. It is for harnesses
// that line another controller's passes up with this one's.
func SpreadOffset(sourceIndex int, hpa metav1.Object, period time.Duration) time.Duration {
	key := hpaKey{source: sourceIndex, namespace: hpa.GetNamespace(), name: hpa.GetName()}
	return spreadOffset(slotKey(key, hpa), period)
}
