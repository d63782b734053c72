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

// Package cadence decides when an HPA is due for its next pass: every rule
// of "when" in one place, with no queue and no clock but the times passed
// in. The controller asks at two points, when an informer's event arrives
// (OnAdd, OnUpdate, OnDelete) and when a pass ended (AfterPass), and it
// alone writes the answer to its work queue.
//
// The rules, as kube-controller-manager v1.37 has them unless said:
//   - the period: the global --horizontal-pod-autoscaler-sync-period, or,
//     with HPAConfigurableSyncPeriod (KEP-6003), the HPA's own;
//   - a new HPA is due at once, and so is a new spec (a new generation with
//     HPAGeneration; any spec change with HPAConfigurableSyncPeriod);
//   - after a pass, the HPA is due one period after the pass ended;
//   - spread (kube-hpa's --horizontal-pod-autoscaler-spread-reconciles):
//     on its own slot of the period instead (Slots), one period after the
//     pass's start when the pass paced the next one (it rescaled, or a rate
//     limit held part of the recommendation back), as upstream's next pass
//     comes after one that takes no time;
//   - a fallback deadline that falls more than WakeSlack before that brings
//     the pass forward to it;
//   - a pass skipped because the HPA cache was stale: a period later;
//   - a pass that panicked: a backoff, one global period doubling with each
//     panic in a row up to PanicBackoffMax periods;
//   - a deleted HPA: at once with HPAConfigurableSyncPeriod (its state and
//     series go with its pass), else at its next turn;
//   - the slow lane (kube-hpa's, lane.go): which due HPA gets a worker now
//     and which waits for one to free (Lane.Admit, then Rules.Woken), how
//     long a worker holds a pass before the pass goes on off the workers
//     (Hold.Keep), and when an HPA's passes start in the lane (Standing).
//     Lane is the package's one piece of state, the passes under way per
//     flow, as admission depends on them.
package cadence
