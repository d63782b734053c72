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

// Package podrecord is what the controller keeps of each pod: a small record
// made by the pod informer's transform, holding only what the replica
// calculator and the selector index read (labels, phase, readiness, start
// time, deletion and resource requests as milli-values). A cluster's pods are
// the largest cache an HPA controller holds, and a *corev1.Pod costs its
// whole struct (over a kilobyte of unused fields, one container struct and
// one quantity map per container) even when stripped; a record costs a fifth
// of that, less where pods of one template share their labels map, which is
// what lets one replica hold tens of thousands of pods.
package podrecord
