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

package fallback

import (
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
)

// Carry returns the fallback state of the External metrics with a fallback
// as the stored status holds it, for a pass that asks no metric (the
// target outside [minReplicas, maxReplicas], paused at zero, or a selector
// that cannot be used). Only an answer from the provider ends a run of
// failures, so such a pass must not restart a failing metric's clock, nor
// take a metric out of fallback. It returns the entries to store and the
// metrics still in fallback, with what they would propose at tgt.
func Carry(specs []v2.MetricSpec, stored []v2.MetricStatus, tgt Target) (kept []v2.MetricStatus, active []InFallback) {
	for i := range specs {
		src := specs[i].External
		if src == nil || src.Fallback == nil {
			continue
		}
		previous := Find(stored, src.Metric)
		if previous == nil || previous.FirstFailureTime == nil {
			continue
		}
		kept = append(kept, v2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: previous.DeepCopy()})
		if previous.FallbackStatus == v2.FallbackStatusFallback {
			active = append(active, InFallback{Name: previous.Metric.Name, Strategy: tgt.Strategy(src.Fallback), Replicas: tgt.Propose(src.Fallback)})
		}
	}
	return kept, active
}

// Reasons of KEP-5679's condition and events.
const (
	ReasonActive        = "FallbackActive"
	ReasonNotActive     = "NoFallbackActive"
	EventActivated      = "ExternalMetricFallbackActivated"
	EventDeactivated    = "ExternalMetricFallbackDeactivated"
	conditionNoneActive = "no external metric is using its fallback"
)

// Condition is ExternalMetricFallbackActive for the metrics active (those
// whose decision was Active), in the order of the spec. A metric whose
// strategy is not Static is named with its strategy and proposal.
func Condition(active []InFallback) condition.Condition {
	if len(active) == 0 {
		return condition.Condition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionFalse,
			Reason: ReasonNotActive, Message: conditionNoneActive}
	}
	names := make([]string, len(active))
	for i, a := range active {
		names[i] = a.String()
	}
	return condition.Condition{Type: v2.ExternalMetricFallbackActive, Status: corev1.ConditionTrue, Reason: ReasonActive,
		Message: "external metrics using their fallback replica count: " + strings.Join(names, ", ")}
}

// Event is an event (of type Normal) that a stored change warrants.
type Event struct {
	Reason  string
	Message string
}

// Transitions returns one event per External metric whose fallback state
// changed between the status stored before (before) and the status just
// stored (after). Deriving the events from the stored status, rather than
// from the step that changed it, gives every path its event (a metric
// recovering, its fallback removed from the spec, the gate turned off) and
// never a second one: a pass whose status write fails emits nothing, and
// the next pass compares against the same stored status, so the transition
// is reported once, when it is stored. tgt is the target as the pass that
// stored after saw it, so an activation names the count its strategy
// proposed.
func Transitions(specs []v2.MetricSpec, before, after []v2.MetricStatus, tgt Target) []Event {
	var events []Event
	for i := range after {
		ext := after[i].External
		if ext == nil || ext.FallbackStatus != v2.FallbackStatusFallback || inFallback(before, ext.Metric) {
			continue
		}
		src := externalSpec(specs, ext.Metric)
		if src == nil || src.Fallback == nil {
			continue
		}
		events = append(events, Event{Reason: EventActivated, Message: activationMessage(ext.Metric.Name, src.Fallback, tgt)})
	}
	for i := range before {
		ext := before[i].External
		if ext == nil || ext.FallbackStatus != v2.FallbackStatusFallback || inFallback(after, ext.Metric) {
			continue
		}
		msg := fmt.Sprintf("Fallback deactivated for external metric '%s': its fallback is no longer configured or enabled", ext.Metric.Name)
		if now := Find(after, ext.Metric); now != nil && now.FallbackStatus == v2.FallbackStatusNormal {
			msg = fmt.Sprintf("External metric '%s' recovered, fallback deactivated", ext.Metric.Name)
		}
		events = append(events, Event{Reason: EventDeactivated, Message: msg})
	}
	return events
}

func externalSpec(specs []v2.MetricSpec, id v2.MetricIdentifier) *v2.ExternalMetricSource {
	for i := range specs {
		if src := specs[i].External; src != nil && sameMetric(src.Metric, id) {
			return src
		}
	}
	return nil
}

// HasFallback tells whether specs have an External metric with a
// fallback, without which no metric of the HPA can be in fallback.
func HasFallback(specs []v2.MetricSpec) bool {
	for i := range specs {
		if ext := specs[i].External; ext != nil && ext.Fallback != nil {
			return true
		}
	}
	return false
}

// Count returns how many of statuses are External metrics in fallback.
func Count(statuses []v2.MetricStatus) int {
	n := 0
	for i := range statuses {
		if ext := statuses[i].External; ext != nil && ext.FallbackStatus == v2.FallbackStatusFallback {
			n++
		}
	}
	return n
}

func inFallback(statuses []v2.MetricStatus, id v2.MetricIdentifier) bool {
	ext := Find(statuses, id)
	return ext != nil && ext.FallbackStatus == v2.FallbackStatusFallback
}

// Find returns the status entry of the External metric id. Entries are
// matched by metric name and selector, not by position, so that editing the
// metric list does not hand one metric's failure history to another.
func Find(statuses []v2.MetricStatus, id v2.MetricIdentifier) *v2.ExternalMetricStatus {
	for i := range statuses {
		if ext := statuses[i].External; ext != nil && sameMetric(ext.Metric, id) {
			return ext
		}
	}
	return nil
}

// sameMetric compares the source too: one name served by two sources is
// two metrics, each with its own failure history. An entry written while
// HPAMetricSource was on names a source the pass no longer sees with the
// gate off, so turning the gate off starts the failure runs of routed
// metrics anew: a fallback comes later, never sooner.
func sameMetric(a, b v2.MetricIdentifier) bool {
	return a.Name == b.Name && a.SourceGroup() == b.SourceGroup() && equality.Semantic.DeepEqual(a.Selector, b.Selector)
}

// activationMessage keeps KEP-5679's text for a Static fallback; another
// strategy says which, and the count it proposed.
func activationMessage(name string, f *v2.ExternalMetricFallback, tgt Target) string {
	strategy := tgt.Strategy(f)
	if strategy == v2.FallbackStrategyStatic {
		return fmt.Sprintf("Fallback activated for external metric '%s' after %v of consecutive failures, using fallback replica count: %d",
			name, Duration(f), f.Replicas)
	}
	return fmt.Sprintf("Fallback activated for external metric '%s' after %v of consecutive failures, using fallback strategy %s: proposing %d replicas (fallback replica count %d, current replicas %d)",
		name, Duration(f), strategy, tgt.Propose(f), f.Replicas, tgt.Current)
}
