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
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Computed is what computing an External metric gave, before fallback: the
// status entry of a metric computed, or the error of one that failed.
type Computed struct {
	Status v2.MetricStatus
	Err    error
}

// Outcome says how the controller must treat the metric.
type Outcome int

const (
	// Normal: the metric was computed; its own proposal stands.
	Normal Outcome = iota
	// Failing: the provider failed and the fallback is not due yet; the
	// metric is invalid, as upstream treats a failing metric.
	Failing
	// NotCounted: the metric failed for a reason other than the provider
	// (no pods selected, say); it stays invalid and its condition says
	// that this failure does not count toward the fallback.
	NotCounted
	// Active: the provider has failed for failureDurationSeconds; the
	// metric proposes Decision.Replicas instead of failing.
	Active
)

// NotCountedNote ends the message of a NotCounted metric's condition.
const NotCountedNote = "; this is not a failure of the metrics provider, so it does not count toward the fallback"

// Decision is what fallback makes of one External metric in one pass.
type Decision struct {
	Outcome Outcome
	// Status is the entry to store for the metric.
	Status v2.MetricStatus
	// Replicas, when Active, is the metric's proposal.
	Replicas int32
	// Strategy, when Active, is the strategy that made Replicas.
	Strategy v2.FallbackStrategy
	// Name, when Active, names the proposal in messages and rescale reasons.
	Name string
	// WakeAt, when Failing, is the moment the fallback comes due: the
	// controller reconciles again then instead of a sync period later.
	WakeAt time.Time
}

// Decide applies the fallback of src to one computation of its metric.
// previous is the entry the last stored status holds for the metric (nil
// if none). The first failure's time is kept in status so that it survives
// a restart; an answer from the provider ends the run of failures; once
// the run has lasted failureDurationSeconds the metric is in fallback, and
// proposes what its strategy makes of replicas with the target at tgt.
func Decide(previous *v2.ExternalMetricStatus, src *v2.ExternalMetricSource, now time.Time, c Computed, tgt Target) Decision {
	switch {
	case c.Err == nil:
		status := *c.Status.DeepCopy()
		status.External.FallbackStatus = v2.FallbackStatusNormal
		return Decision{Outcome: Normal, Status: status}
	case IsProviderFailure(c.Err):
		return decideFailure(previous, src, now, tgt)
	}
	d := Decision{Outcome: NotCounted, Status: failureStatus(src.Metric, nil)}
	if _, err := metav1.LabelSelectorAsSelector(src.Metric.Selector); err != nil && previous != nil {
		// A selector that does not parse fails before the provider is
		// asked (validation does not check it): the run of failures, if
		// any, is neither advanced nor ended.
		d.Status.External = previous.DeepCopy()
	}
	return d
}

func decideFailure(previous *v2.ExternalMetricStatus, src *v2.ExternalMetricSource, now time.Time, tgt Target) Decision {
	firstFailure := metav1.NewTime(now)
	// A first failure recorded ahead of this controller's clock (by a
	// replica whose clock ran ahead) counts from now, or it would put the
	// fallback off by the skew, possibly for good.
	if previous != nil && previous.FirstFailureTime != nil && !previous.FirstFailureTime.After(now) {
		firstFailure = *previous.FirstFailureTime
	}
	status := failureStatus(src.Metric, &firstFailure)
	due := firstFailure.Add(Duration(src.Fallback))
	if now.Before(due) {
		return Decision{Outcome: Failing, Status: status, WakeAt: due}
	}
	status.External.FallbackStatus = v2.FallbackStatusFallback
	return Decision{
		Outcome:  Active,
		Status:   status,
		Replicas: tgt.Propose(src.Fallback),
		Strategy: tgt.Strategy(src.Fallback),
		Name:     fmt.Sprintf("external metric %s fallback", src.Metric.Name),
	}
}

// failureStatus is the status entry of a failing External metric: its
// identifier (source included) and fallback state, no value.
func failureStatus(id v2.MetricIdentifier, firstFailure *metav1.Time) v2.MetricStatus {
	return v2.MetricStatus{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricStatus{
			Metric:           *id.DeepCopy(),
			FallbackStatus:   v2.FallbackStatusNormal,
			FirstFailureTime: firstFailure,
		},
	}
}

// Duration is failureDurationSeconds as a Duration. Validation bounds the
// field, but an object stored before that check may hold any int64: a
// count of seconds beyond what a Duration holds saturates (the fallback is
// then never due) instead of wrapping around to a negative duration that
// would make it due at the first failure.
func Duration(f *v2.ExternalMetricFallback) time.Duration {
	seconds := v2.DefaultFailureDurationSeconds
	if f.FailureDurationSeconds != nil {
		seconds = *f.FailureDurationSeconds
	}
	const maxSeconds = int64(math.MaxInt64 / time.Second)
	switch {
	case seconds > maxSeconds:
		return math.MaxInt64
	case seconds < 0:
		return 0
	}
	return time.Duration(seconds) * time.Second
}
