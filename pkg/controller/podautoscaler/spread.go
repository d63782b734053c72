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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
)

// Spread (Options.SpreadReconciles), each HPA is due on a slot of its own
// in its period (package cadence). Its offset is a hash of the HPA's first
// External metric (namespace, name and selector) when it has one, else of
// its key: HPAs that share a metric pass together, so that one fetch serves
// them all, fresh, while distinct metrics and the other HPAs spread over
// the period. Apart, each would take an answer fetched up to a window
// earlier by another, and act on a change that much later.

// turn is an HPA's cadence and the timing of the pass just made, if any.
type turn struct {
	hpa  cadence.HPA
	last passTiming
}

// cadenceOf is the cadence of obj, an HPA of a source's informer (native
// or extended) or a source's copy. The slot key is only worked out when
// reconciles are spread: it is on every pass's path.
func (c *Controller) cadenceOf(key hpaKey, obj any) cadence.HPA {
	h := cadence.HPA{Period: c.syncPeriodOfObject(obj)}
	if c.opts.SpreadReconciles {
		h.SlotKey = slotKey(key, obj)
	}
	return h
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

// SpreadOffset is where, within period, the passes of hpa (an HPA of the
// source at sourceIndex of Options.Sources, native or extended) land when
// reconciles are spread, counted from the Unix epoch. It is for harnesses
// that line another controller's passes up with this one's.
func SpreadOffset(sourceIndex int, hpa metav1.Object, period time.Duration) time.Duration {
	key := hpaKey{source: sourceIndex, namespace: hpa.GetNamespace(), name: hpa.GetName()}
	return cadence.Offset(slotKey(key, hpa), period)
}
