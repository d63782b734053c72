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

// Package localcluster starts a local Kubernetes control plane made of the
// real upstream binaries that hack/build-upstream.sh builds into _output/bin:
// etcd, kube-apiserver, kube-controller-manager without its HPA controller,
// kube-scheduler, and kwok, which plays the kubelet of a few fake nodes so
// that pods become Running and Ready without containers.
//
// Tests that need an API server use it instead of hand-written fakes, and
// `make run` uses it for a demo cluster. Every component listens on a free
// loopback port, so several clusters (and several engineers) can share one
// machine; all certificates are generated at run time; each component's log
// stays under _output/localcluster/<run>/logs after the cluster stops.
//
// With Options.InTree the cluster takes kube-apiserver,
// kube-controller-manager and kube-scheduler from _output/bin/intree instead
// (make intree: the KEP-5679 fields in native autoscaling/v2, this
// repository's controller as kube-controller-manager's HPA controller), and
// Options.HPAController, FeatureGates and HPA run that controller with the
// given gates and flags; RestartControllerManager restarts it in place.
// With Options.ControlPlaneBinDir it takes kube-apiserver,
// kube-controller-manager and kube-scheduler of another release, as make
// e2e-skew does with v1.36.3's.
//
// Start a cluster with Start (or StartForTest in a test) and always Stop it:
// Stop ends each component's whole process group. Children are also started
// with a parent-death signal, so a test binary that panics or times out takes
// its cluster down with it.
package localcluster
