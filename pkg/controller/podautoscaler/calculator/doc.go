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

// Package calculator proposes a replica count for one metric of an HPA: it
// compares the metric's current readings with the target and scales the
// number of pods by their ratio.
//
// The rules are those of kube-controller-manager v1.36's replica calculator.
// Pods that are being deleted or have failed are ignored. Pods without a
// reading, pods that are still pending, and (for CPU) pods that are not yet
// ready or have just started are held back at first, then counted at the
// value that makes the proposal most cautious: a pod without a reading uses
// 100% of its request on a scale-down and 0% on a scale-up; an unready pod
// uses 0% on a scale-up. A proposal that this caution would turn around, or
// that falls within the tolerance, keeps the current replicas.
//
// Object and External metrics of type Value propose from the ready pods;
// from zero replicas (scale to zero, KEP-2021) they propose
// ceil(value/target) with no tolerance, so that a positive reading always
// scales up from zero.
package calculator
