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
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/condition"
)

// proposal is what one metric asks for.
type proposal struct {
	replicas  int32
	name      string // how messages and the rescale reason name the metric
	timestamp time.Time
	status    v2.MetricStatus

	// reason and cause say why the metric could not be computed, as the
	// event reports it. err, which says which metric failed, is set while
	// the metric is invalid: a metric in fallback was not computed (its
	// failure is still reported) but is valid.
	reason string
	cause  error
	err    error
	// note ends the message of the failure condition.
	note string
	// fallback marks a proposal made by an External metric's fallback,
	// and fallbackStrategy is the strategy that made it.
	fallback         bool
	fallbackStrategy v2.FallbackStrategy
}

// failed is the proposal of a metric that could not be computed. As
// upstream, the event and the condition carry the cause as the calculator
// (or the spec check) reported it, and err, which says which metric
// failed, is what the pass reports; wrap adds that context to cause.
func failed(reason string, cause error, wrap func(error) error) proposal {
	err := cause
	if wrap != nil {
		err = wrap(cause)
	}
	return proposal{reason: reason, cause: cause, err: err}
}

// wrapf returns a wrap for failed that prefixes the cause with the
// formatted text, keeping the cause for errors.Is.
func wrapf(format string, args ...any) func(error) error {
	prefix := fmt.Sprintf(format, args...)
	return func(cause error) error { return fmt.Errorf("%s: %w", prefix, cause) }
}

// failure is the ScalingActive=False condition that explains an invalid
// metric.
func (pr proposal) failure() condition.Condition {
	c := newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, pr.reason,
		"the HPA was unable to compute the replica count: %v", pr.cause)
	c.Message += pr.note
	return c
}

// invalidMetrics counts the failed metrics and keeps the first failure,
// which is the one reported.
type invalidMetrics struct {
	count int
	first proposal
}

// err reports the invalid metrics, wrapping the first error as upstream
// v1.37 does: when that one is a spec error (an unknown metric source
// type), the reconciliation is labelled "spec" (v1.36 said "internal").
func (i invalidMetrics) err(total int) error {
	return fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", i.count, total, i.first.err)
}

// combineProposals keeps the largest valid proposal, and its index (-1
// when none is valid). As upstream, a running best of zero is replaced by
// any later proposal, so when every valid metric proposes zero the last one
// is the one named; otherwise ties go to the first.
func combineProposals(proposals []proposal) (best proposal, bestIndex int, invalid invalidMetrics) {
	bestIndex = -1
	for i, pr := range proposals {
		if pr.err != nil {
			if invalid.count == 0 {
				invalid.first = pr
			}
			invalid.count++
			continue
		}
		if best.replicas == 0 || pr.replicas > best.replicas {
			best, bestIndex = pr, i
		}
	}
	return best, bestIndex, invalid
}
