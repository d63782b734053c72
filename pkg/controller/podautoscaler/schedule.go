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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// When each HPA is reconciled. As upstream v1.37: a new HPA at once, and
// with HPAGeneration a spec change (a new generation) too; every HPA just
// reconciled, or otherwise updated, comes back one global period later
// (the fixed-interval limiter). With HPAConfigurableSyncPeriod (KEP-6003):
// each HPA has its own period, spec.syncPeriodSeconds or the global
// one; a changed spec is reconciled at once even without a generation
// (native HPAs on an older API server); a status-only update asks for
// nothing earlier than the period. With SpreadReconciles (spread.go),
// every later pass lands on the HPA's own slot of its period.

// configurablePeriod reports whether the HPAConfigurableSyncPeriod gate is
// on.
func (c *Controller) configurablePeriod() bool {
	return c.opts.Gates.Enabled(features.HPAConfigurableSyncPeriod)
}

// syncPeriodOf is the interval at which hpa is reconciled.
func (c *Controller) syncPeriodOf(hpa *v2.HorizontalPodAutoscaler) time.Duration {
	if c.configurablePeriod() {
		if d, ok := hpa.Spec.SyncPeriod(); ok {
			return d
		}
	}
	return c.opts.SyncPeriod
}

// syncPeriodOfObject is syncPeriodOf for an object of a source's informer:
// an extended HPA, or a native one, which has no syncPeriodSeconds in
// autoscaling/v2 of v1.36 and so takes the global period.
func (c *Controller) syncPeriodOfObject(obj any) time.Duration {
	if hpa, ok := obj.(*v2.HorizontalPodAutoscaler); ok {
		return c.syncPeriodOf(hpa)
	}
	return c.opts.SyncPeriod
}

// specChanged reports whether an update of an informer's object changed
// the HPA's spec. An extended HPA (a custom resource) has its generation
// bumped by the API server on every spec change and only then; a native
// one does not in v1.36 (kubernetes#138228), so its spec is compared.
func specChanged(old, cur any) bool {
	switch cur := cur.(type) {
	case *v2.HorizontalPodAutoscaler:
		old, ok := old.(*v2.HorizontalPodAutoscaler)
		return !ok || old.Generation != cur.Generation
	case *autoscalingv2.HorizontalPodAutoscaler:
		old, ok := old.(*autoscalingv2.HorizontalPodAutoscaler)
		return !ok || !equality.Semantic.DeepEqual(old.Spec, cur.Spec)
	}
	return false
}

// enqueueNew queues an HPA the informer just delivered: at once, as
// kube-controller-manager v1.37 does (v1.36 waited for the period).
func (c *Controller) enqueueNew(key hpaKey) {
	c.queue.Add(key)
}

// generationChanged reports whether an update of an informer's object
// carries a new metadata.generation: the API server's count of spec
// changes (v1.37 counts them for native HPAs too).
func generationChanged(old, cur any) bool {
	o, okOld := old.(metav1.Object)
	n, okCur := cur.(metav1.Object)
	return okOld && okCur && o.GetGeneration() != n.GetGeneration()
}

// enqueueUpdate queues an HPA after an update of its object. A changed
// spec is reconciled at once; any other update (the controller's own
// status write, a label) asks for the HPA's period, which the delaying
// queue ignores when the HPA is already due sooner: it never comes early.
func (c *Controller) enqueueUpdate(key hpaKey, old, cur any) {
	switch {
	case c.opts.Gates.Enabled(features.HPAGeneration) && generationChanged(old, cur):
		c.queue.Add(key)
	case c.configurablePeriod() && specChanged(old, cur):
		c.queue.Add(key)
	case c.opts.SpreadReconciles:
		// The HPA is queued already, since every pass requeues it; a spec
		// change may move its slot. A status update (the pass's own write)
		// must not bring forward a pass that its last one paced.
		if specChanged(old, cur) {
			c.queue.AddAfter(key, c.cadenceOf(key, cur).untilSlot(c.opts.Clock.Now()))
		}
	case !c.configurablePeriod():
		c.queue.AddRateLimited(key)
	default:
		c.queue.AddAfter(key, c.syncPeriodOfObject(cur))
	}
}

// enqueueDeleted has a deleted HPA reconciled at once, which finds it gone
// and drops its state and series: with periods of up to an hour they would
// otherwise outlive it that long. With the gate off, as upstream, the HPA's
// next periodic turn does it.
func (c *Controller) enqueueDeleted(key hpaKey) {
	if c.configurablePeriod() {
		c.queue.Add(key)
	}
}

// requeue puts key back after a pass: one period of the HPA after the pass
// ended, as upstream does with its one global period. A pass that took
// longer than the period queues nothing more than that one turn (the queue
// holds a key once), so a slow adapter cannot pile work up. Counting from
// the end rather than the start also keeps shared external metrics fresh:
// the answer an HPA got is always more than a period old at its next pass,
// so it never takes its own last answer again from the sharing window.
//
// Spread, the HPA comes back on its next slot instead (spread.go), unless
// its pass paces the next one (pacing.go): then one period after the pass
// started, as upstream's after a pass that takes no time. Slots count from
// a pass's start too, so that a pass that took long (a provider hanging
// until the fetch budget) costs the HPA neither its period nor, when it
// rescaled, a step of its ramp: the pass's rescale is recorded at its
// start as well (pass.now).
func (c *Controller) requeue(key hpaKey, next cadence) {
	if c.opts.SpreadReconciles {
		if next.last.paced {
			c.queue.AddAfter(key, max(next.last.start.Add(next.period).Sub(c.opts.Clock.Now()), 0))
			return
		}
		c.queue.AddAfter(key, next.untilSlot(c.opts.Clock.Now()))
		return
	}
	if !c.configurablePeriod() {
		c.queue.AddRateLimited(key)
		return
	}
	c.queue.AddAfter(key, next.period)
}
