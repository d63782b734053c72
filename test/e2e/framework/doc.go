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

// Package framework is the machinery of kube-hpa's ginkgo e2e suite
// (test/e2e/autoscaling): the environment the specs run in and the small
// helpers they share.
//
// The environment is either a cluster named by KUBECONFIG (see Config for
// what must be installed there) or, by default, one that ginkgo's first
// process builds for the whole run with StartLocal: the local control plane
// of test/localcluster, the test metrics adapter registered for
// external.metrics.k8s.io and custom.metrics.k8s.io, and two replicas of
// hpa-controller-manager run by a Supervisor under the ServiceAccount of
// deploy/rbac.yaml, behind a TCP round robin that serves their admission
// webhook, whose serving certificate the replicas read from a Secret-volume
// layout that specs can renew (WebhookCertificates). Process 1 also serves
// a small control endpoint so that a spec on any ginkgo process can kill,
// stop, start or restart controller replicas (ControlClient).
//
// In in-tree mode (LocalOptions.Mode, Config.Mode) StartLocal runs no
// hpa-controller-manager: the control plane is that of make intree, whose
// kube-controller-manager runs its own HPA controller with KEP-5679's
// patch series, and the control endpoint restarts kube-controller-manager
// (Environment.ControllerManager).
//
// Helpers take a context and fail the current spec through gomega; none of
// them keeps state between specs.
package framework
