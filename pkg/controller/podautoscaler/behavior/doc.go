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
// Reasons and messages of the conditions are upstream's, word for word,
// since users and alerts match on them.
//
// # Scaling from zero
//
// A Percent policy grows a workload by a share of the replicas at the start
// of its period, and a share of zero is zero: under Percent-only scale-up
// policies, upstream never scales a workload up from zero replicas (unless
// minReplicas > 0, which the controller enforces after normalization). The
// controller evaluates metrics at zero replicas only when it scaled the
// workload to zero itself (KEP-2021), so the metrics asking for replicas then
// must be able to bring it back. Our rule: while the workload has zero
// replicas, a Percent scale-up policy counts from at least one replica, so
// P% allows ceil(1 x (1 + P/100)) replicas (2 for 100%). Only the step from
// zero is affected; once replicas exist, the usual rule applies again. Pods
// policies need no such rule: they add their value to zero like to any base.
//
// # Where we differ from upstream on purpose
//
//   - Percent limits use exact integer arithmetic: upstream's floating point
//     rounds 50 replicas + 10% up to 56, since 50 x 1.1 is not exactly 55.
//   - Limits are computed in 64 bits and clamped to int32, so a huge Pods or
//     Percent value cannot overflow.
//   - A recommendation counts in a window when it is strictly newer than
//     now - window, in both paths (upstream's legacy path also counts one
//     exactly window-old, which only a fake clock can hit).
//   - Scale events are forgotten once older than the longest policy period of
//     both directions, not of the event's own direction: the scale-down
//     policies count scale-ups too (and the reverse), so dropping them by
//     the shorter period would loosen those limits.
//   - The Store forgets an HPA's histories when the HPA is deleted (Forget).
package behavior
