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

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Who set a target's replicas to zero must survive any single failure and
// a restart: a zero the controller made and then failed to record would be
// read as a person's pause, and the workload would never come back by
// itself. Upstream writes the scale first and ScaledToZero afterwards, so
// anything that ends the pass between the two writes (a 5xx or a time-out
// of the status write, a cancelled context, the process killed) loses it.
//
// kube-hpa records the intent first: before the scale write that takes a
// target to zero, the pass stores ScaledToZero=True, and writes the zero
// only once that is stored. Every single failure then leaves a state the
// next pass reads right:
//
//   - the intent's write fails: nothing is scaled, the pass fails;
//   - the scale write fails, or conflicts and is decided again: the pass
//     puts the condition back as it found it; if that write fails too, the
//     next pass sees the target above zero and clears the condition
//     (forgetOwnZero), so the intent is never taken for a zero;
//   - the scale write lands and the final status write fails, or the
//     process dies in between: ScaledToZero=True is already stored, so the
//     next pass sees its own zero and scales from it when the metrics ask.
//
// A person's `kubectl scale --replicas=0` writes no intent, so it stays a
// pause whatever fails. The other way, reading who owns spec.replicas from
// the target's managedFields, was not taken: the scale subresource of a
// custom resource need not carry them, the scale caches keep no metadata
// beyond the scale, and an update that writes the value already stored
// does not move ownership, so a person's zero over the controller's own
// would still read as the controller's.

// writeZeroIntent stores ScaledToZero=True before the pass writes a zero
// over a target with replicas. The stored status becomes the one the final
// write starts from; the decision still reads the status the pass began
// with (zeroAtStart).
func (p *pass) writeZeroIntent() error {
	intent := outcome{conds: []conditionEdit{set(scaledToZeroCondition())}}
	if err := p.writeStatus(intent); err != nil {
		return fmt.Errorf("not scaling %s to zero: recording that the HPA controller scales it to zero: %w", p.reference, err)
	}
	return nil
}

// settleZeroIntent puts ScaledToZero back as the pass found it when the
// pass wrote an intent to scale to zero and ends without that zero: a
// failed or abandoned scale write must not leave the intent behind, or a
// person's later zero would be taken for the controller's. An outcome that
// sets ScaledToZero itself already says what is true.
func (p *pass) settleZeroIntent(out outcome) outcome {
	stored := findCondition(&p.hpa.Status, v2.ScaledToZero)
	if sameCondition(stored, p.zeroAtStart) {
		return out
	}
	if editsCondition(out.conds, v2.ScaledToZero) {
		if p.zeroAtStart == nil {
			// The intent put the condition first among those of this
			// pass; upstream adds it after them, and kubectl describe
			// shows conditions in their order.
			out.conds = append([]conditionEdit{remove(v2.ScaledToZero)}, out.conds...)
		}
		return out
	}
	out.conds = append(out.conds, restore(v2.ScaledToZero, p.zeroAtStart))
	return out
}

func editsCondition(edits []conditionEdit, t autoscalingv2.HorizontalPodAutoscalerConditionType) bool {
	for _, e := range edits {
		if e.cond.Type == t {
			return true
		}
	}
	return false
}

func sameCondition(a, b *autoscalingv2.HorizontalPodAutoscalerCondition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}
