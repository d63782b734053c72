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

// Package behavior turns the replica count that the metrics ask for (the
// maximum over all metrics, called the recommendation) into the replica count
// the controller applies, and explains the outcome with the AbleToScale and
// ScalingLimited conditions.
//
// A Store keeps, per HPA key ("namespace/name"), the two histories this needs:
// recent recommendations, for stabilization, and recent scale events, for
// the rate policies of spec.behavior. Two paths read them:
//
//   - Without spec.behavior (the legacy path), a scale-down waits until no
//     recommendation in the downscale stabilization window (the controller's
//     --horizontal-pod-autoscaler-downscale-stabilization flag) was higher, a
//     scale-up goes at most to max(2 x current, 4) replicas, and the result
//     is clamped to [minReplicas, maxReplicas].
//   - With spec.behavior, stabilization works in both directions: a scale-up
//     goes no higher than the lowest recommendation of the scale-up window
//     (default 0 s), a scale-down no lower than the highest recommendation of
//     the scale-down window (the rules' value, else the flag's). Then the
//     Pods and Percent policies bound the change over their periodSeconds,
//     counted from the replicas at the start of the period as the scale
//     events tell; selectPolicy Max keeps the policy that allows the largest
//     change, Min the smallest, Disabled allows none. maxReplicas bounds a
//     scale-up and minReplicas a scale-down. Unset rule fields take
//     upstream's defaults (api/autoscaling/v2.ScaleUpRules, ScaleDownRules).
//
// Reading and writing the histories are apart: Normalize, Initial and Scale
// write nothing, they return the Records of what to write (with the times
// they would have been written at), and the caller commits them
// (Store.Commit) once the decision they belong to stands. A decision the
// caller abandons so leaves no trace.
//
// Reasons and messages of the conditions are upstream's, word for word,
// since users and alerts match on them.
//
// # Scaling from zero
//
// A Percent policy grows a workload by a share of the replicas at the start
// of its period, and a share of zero is zero: under Percent-only scale-up
// policies a workload at zero replicas (with no scale-down to zero within
// the policy's period) is not scaled up, as upstream v1.36 does (unless
// minReplicas > 0, which the controller enforces after normalization).
// Pods policies add their value to zero like to any base, and upstream's
// default scale-up rules include one (4 pods per 15 s).
//
// # Where we differ from upstream on purpose
//
//   - Limits are computed in 64 bits and clamped to int32, so a huge Pods or
//     Percent value cannot overflow (upstream wraps around, or converts an
//     out-of-range float to int32, which Go leaves undefined).
//   - A recommendation counts in a window when it is strictly newer than
//     now - window, in both paths (upstream's legacy path also counts one
//     exactly window-old, which only a fake clock can hit).
package behavior
