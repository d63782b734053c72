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
