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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
)

// The controller's side of the slow lane, whose rules are package
// cadence's (lane.go): which flows a pass counts against, and a worker
// that holds a pass until it ends or overruns its share.

// The default API groups of each kind of metric, where a metric that names
// no source is fetched.
const (
	resourceMetricsGroup = "metrics.k8s.io"
	customMetricsGroup   = "custom.metrics.k8s.io"
	externalMetricsGroup = "external.metrics.k8s.io"
)

// flowsOf returns the flows of hpa in namespace; nil hpa (not in the
// cache) has its namespace alone.
func flowsOf(namespace string, hpa *v2.HorizontalPodAutoscaler) cadence.Flows {
	out := cadence.Flows{"namespace/" + namespace}
	if hpa == nil {
		return out
	}
	seen := map[string]bool{}
	for _, m := range hpa.Spec.Metrics {
		group := metricSourceGroup(m)
		if group != "" && !seen[group] {
			seen[group] = true
			out = append(out, "source/"+group)
		}
	}
	return out
}

// metricSourceGroup is the API group that m is fetched from.
func metricSourceGroup(m v2.MetricSpec) string {
	var id *v2.MetricIdentifier
	def := ""
	switch m.Type {
	case autoscalingv2.ResourceMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType:
		return resourceMetricsGroup
	case autoscalingv2.PodsMetricSourceType:
		def = customMetricsGroup
		if m.Pods != nil {
			id = &m.Pods.Metric
		}
	case autoscalingv2.ObjectMetricSourceType:
		def = customMetricsGroup
		if m.Object != nil {
			id = &m.Object.Metric
		}
	case autoscalingv2.ExternalMetricSourceType:
		def = externalMetricsGroup
		if m.External != nil {
			id = &m.External.Metric
		}
	}
	if g := id.SourceGroup(); g != "" {
		return g
	}
	return def
}

// laneHold is a pass's place in the controller's slow lane.
type laneHold = cadence.Hold[hpaKey]

// holdWorker keeps the worker until the pass of hold ends or overruns its
// share (cadence's Hold.Keep): then the pass goes on in the lane, its HPA
// counts as slow from that moment, and the worker takes the next HPA.
func (c *Controller) holdWorker(ctx context.Context, key hpaKey, hold *laneHold, done <-chan struct{}) {
	start := c.opts.Clock.Now()
	// A pass that just started always keeps its worker for a first check.
	first, _ := hold.Keep(0, start)
	timer := c.opts.Clock.NewTimer(first)
	defer timer.Stop()
	for {
		select {
		case <-done:
			return
		case <-timer.C():
		}
		more, keep := hold.Keep(c.opts.Clock.Since(start), c.opts.Clock.Now())
		if !keep {
			break
		}
		timer.Reset(more)
	}
	moved, freed := hold.ToLane()
	c.wakeFreed(freed)
	if moved {
		c.passes.overran(key)
		klog.FromContext(ctx).V(2).Info("HPA pass moved to the slow lane", "hpa", key.String(), "after", c.opts.Clock.Since(start))
	}
}

// wakeFreed queues the HPA that a freed worker is for, if any.
func (c *Controller) wakeFreed(f cadence.Freed[hpaKey]) {
	if f.OK {
		c.schedule(f.Key, c.rules.Woken(c.opts.Clock.Now()))
	}
}

// passSpeedOf is the speed of the pass of hold that ended at end, whose
// turn is next.
func passSpeedOf(hold *laneHold, next turn, end time.Time) cadence.Speed {
	if next.last.start.IsZero() {
		return cadence.NotPassed
	}
	return hold.Speed(end.Sub(next.last.start))
}
