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

// Package podautoscaler is kube-hpa's horizontal pod autoscaler controller:
// the reconcile loop of kube-controller-manager v1.37's HPA controller, split
// by responsibility, plus the fallback of KEP-5679 and the scale-to-zero of
// KEP-2021. The replica math lives in the calculator subpackage, the
// stabilization and rate limits in behavior, the fallback rules in fallback,
// the metrics API clients in metrics, the Prometheus series in monitor and
// when each HPA is due in cadence; this package keeps the queue (schedule
// is its one writer) and wires them into one pass over one HPA.
//
// A pass is a pipeline of values (reconcile.go): checkSpec, then decide
// (readTarget -> startFrom -> recommend -> normalize -> apply), each step
// returning its result and the condition changes it decided; record then
// commits the outcome, in one place: its writes to the behavior history
// (the first recommendation, the stabilized one, the scale event, as
// behavior.Effects) and status (status.go). A decision that decide abandons
// (its scale write conflicted) so leaves nothing behind. Everything about
// zero replicas is in zero.go, the evaluation of one metric in evaluate.go.
//
// The one status write before the record is a scale to zero's intent:
// ScaledToZero is stored before the zero is written, so that a zero the
// controller made is never taken for a person's pause, whatever single
// write fails or whatever process dies in between (zero_intent.go says why
// this way and not the target's managedFields).
//
// The nouns of a pass, one type each:
//   - target: the scale of the HPA's target as the pass read it;
//   - startingPoint: what the target's count decides before any metric is
//     asked (a count out of range, a target at zero), or a request for the
//     metrics;
//   - proposal: one metric's replica count (or its fallback, or its error);
//   - recommendation: the proposals combined, the largest valid one;
//   - plan: the count the pass means to apply and why, once normalized;
//   - outcome: everything the pass decided, which record commits;
//   - trace: why, as the decision trace in status explains it.
//
// A time of the pass is its now (its start), or its stamp (reconcile.go).
//
// A pass holds its worker for at most a quarter of its period, 250 ms when
// its flow (its namespace's or its metrics source's passes) is hot: one
// that runs longer goes on in the slow lane, off the workers. A hot flow
// borrows idle workers but always leaves one free, and stays hot a period
// after its last pass in the lane; an HPA turned away waits there and is
// handed back when a worker frees (cadence/lane.go, docs/slow-providers.md).
// One tenant's hanging provider so never holds another tenant's workers.
package podautoscaler
