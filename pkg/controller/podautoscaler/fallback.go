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

	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/fallback"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// fallbackEnabled reports whether fallback applies to src in this pass.
func (p *pass) fallbackEnabled(src *v2.ExternalMetricSource) bool {
	return src.Fallback != nil && p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback)
}

// applyFallback lets the fallback rules of package fallback decide what an
// External metric's computation means, and returns the deadline at which
// its fallback comes due, if any. A metric in fallback keeps the reason and
// cause of its failure, which are still reported.
func (p *pass) applyFallback(src *v2.ExternalMetricSource, pr proposal, current int32) (proposal, time.Time) {
	previous := fallback.Find(p.hpa.Status.CurrentMetrics, src.Metric)
	d := fallback.Decide(previous, src, p.now.Time, fallback.Computed{Status: pr.status, Err: pr.err}, p.fallbackTarget(current))
	pr.status = d.Status
	switch d.Outcome {
	case fallback.NotCounted:
		pr.note = fallback.NotCountedNote
	case fallback.Active:
		p.logger.V(2).Info("External metric in fallback", "metric", src.Metric.Name,
			"firstFailureTime", d.Status.External.FirstFailureTime.Time, "replicas", d.Replicas, "strategy", d.Strategy, "cause", pr.err)
		return proposal{replicas: d.Replicas, name: d.Name, timestamp: p.now.Time, status: d.Status, fallback: true,
			fallbackStrategy: d.Strategy, reason: pr.reason, cause: pr.cause}, time.Time{}
	}
	return pr, d.WakeAt
}

// fallbackTarget is what the fallback strategies read, with the target at
// current replicas.
func (p *pass) fallbackTarget(current int32) fallback.Target {
	return fallback.Target{Current: current, StrategyEnabled: p.c.opts.Gates.Enabled(features.HPAExternalMetricFallbackStrategy)}
}

// keepFallbackHistory returns the fallback state of the External metrics
// that a pass asking no metric carries over (fallback.Carry), and the
// condition that follows from it, with the target at current replicas.
func (p *pass) keepFallbackHistory(current int32) ([]v2.MetricStatus, conditionEdit) {
	if !p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback) {
		return nil, remove(v2.ExternalMetricFallbackActive)
	}
	kept, active := fallback.Carry(p.hpa.Spec.Metrics, p.hpa.Status.CurrentMetrics, p.fallbackTarget(current))
	return kept, p.fallbackCondition(active)
}

// activeFallbacks are the metrics whose proposal is their fallback.
func activeFallbacks(proposals []proposal) []fallback.InFallback {
	var active []fallback.InFallback
	for _, pr := range proposals {
		if pr.fallback {
			active = append(active, fallback.InFallback{Name: pr.status.External.Metric.Name, Strategy: pr.fallbackStrategy, Replicas: pr.replicas})
		}
	}
	return active
}

// fallbackCondition is ExternalMetricFallbackActive for the metrics named
// active. HPAs without a fallback, or with the gate off, carry no such
// condition, so nothing stale is left for a later re-enable.
func (p *pass) fallbackCondition(active []fallback.InFallback) conditionEdit {
	if !p.c.opts.Gates.Enabled(features.HPAExternalMetricFallback) || !p.hpa.Spec.HasFallback() {
		return remove(v2.ExternalMetricFallbackActive)
	}
	return set(fallback.Condition(active))
}

// emitFallbackTransitions records the events of the fallback transitions
// between the status stored before and the one written after, whose
// currentReplicas is the count the fallback strategies read.
func (p *pass) emitFallbackTransitions(before, after *v2.HorizontalPodAutoscalerStatus) {
	tgt := p.fallbackTarget(after.CurrentReplicas)
	for _, e := range fallback.Transitions(p.hpa.Spec.Metrics, before.CurrentMetrics, after.CurrentMetrics, tgt) {
		p.event(corev1.EventTypeNormal, e.Reason, "%s", e.Message)
	}
}
