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
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// When each HPA is due is package cadence's to say; this file gives it
// what it reads of an HPA and writes its answers to the queue, the only
// place that does.

// schedule writes d, the cadence's answer for key, to the queue: the
// delaying queue keeps the earliest of the times it was given for a key,
// and holds a key once, so a pass already due is never put off and no
// backlog piles up.
func (c *Controller) schedule(key hpaKey, d cadence.Due) {
	if d.None {
		return
	}
	if d.Retry {
		// The queue's limiter gives the global period (fixedIntervalLimiter).
		c.queue.AddRateLimited(key)
		return
	}
	if wait := d.At.Sub(c.opts.Clock.Now()); wait > 0 {
		c.queue.AddAfter(key, wait)
		return
	}
	c.queue.Add(key)
}

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

// generationChanged reports whether an update of an informer's object
// carries a new metadata.generation: the API server's count of spec
// changes (v1.37 counts them for native HPAs too).
func generationChanged(old, cur any) bool {
	o, okOld := old.(metav1.Object)
	n, okCur := cur.(metav1.Object)
	return okOld && okCur && o.GetGeneration() != n.GetGeneration()
}
