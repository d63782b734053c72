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

// Package differential drives upstream Kubernetes v1.37.2's HPA code and
// kube-hpa's on the same generated scenarios and fails on every difference a
// user could see that the allow-list (allowlist.go, allowlist_seq.go) does
// not accept.
//
//   - TestCalculator calls upstream's ReplicaCalculator and kube-hpa's
//     Calculator, one method call per scenario, and compares replicas,
//     utilization, raw value, timestamp and error.
//   - TestReconcile plays sequences of steps (pods, readings, fetch errors,
//     a person's scale change, time passing) against upstream's
//     HorizontalController and kube-hpa's Controller, each with fake API
//     clients in a testing/synctest bubble, so that both reconcile at the
//     same instants of a fake clock, and compares after every step the scale,
//     status (replicas, currentMetrics, conditions) and the events recorded
//     during the step, in order, as each controller records them: client-go's
//     correlator, which aggregates and drops events at random, comes after
//     (events.go). kube-hpa runs as shipped: the scale read from a watch of
//     the Deployment (the scale cache), passes spread over the period
//     (both worlds start on the HPA's slot, so its passes must come when
//     upstream's do), shared external fetches, the KEP gates on; some
//     sequences have a second HPA sharing the first's External metrics
//     (twin.go), compared as the first is. Its world
//     also meets faults (faults.go): another writer's change of the
//     target, a person's scale or a re-creation of the target, between its
//     read and its scale update; a person's change its watch delivers only
//     after its next pass; status updates lost to another writer; metric
//     fetches that hang until its fetch budget (upstream's world gets the
//     error at once); and, in both worlds, the status write after a scale
//     write failing with a 500 or a time-out (statusfail.go). Upstream's
//     world has the person's change before its pass when a write of
//     kube-hpa's met it, right after it otherwise. kube-hpa must end where
//     upstream ends on that state, with no allow-list but for a zero whose
//     status write was lost (kube-hpa stored its intent first). The report counts the steps each entry excused, and
//     the run fails when they exceed excusedStepBudget of the steps
//     compared; it ends with a liveness table: the sequences in which
//     each controller rescaled, and the faults that met kube-hpa.
//
// Built with -tags intree against the patched tree of hack/intree (the
// go.mod hack/differential-intree.sh writes), the same harness checks the
// in-tree implementation of KEP-5679: TestUpstreamTrace, with the gate off,
// that the patched controller's upstream world gives what stock v1.37.2's
// gives on every sequence (digests it wrote in a stock build), and
// TestInTreeFallback, with the gate on, that the patched controller and
// kube-hpa agree on fallback sequences (fallback.go). A tree of one series
// alone adds the tags of what it lacks: nosource without KEP-6382 (the
// calculator and metrics client keep stock upstream's signatures), and
// nofallback without KEP-5679 (no fallback field, no bounded client, no
// TestInTreeFallback).
//
// Both are seeded: go test . -args -seed 7 -scenarios 20000 (or
// DIFFERENTIAL_SEED and DIFFERENTIAL_N). A difference prints with
// "-seed S -case I" and as a Go literal to paste into calcRegressions or
// seqRegressions; -trace -case I -seed S prints a sequence step by step.
package differential
