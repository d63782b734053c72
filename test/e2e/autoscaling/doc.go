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

// Package autoscaling is kube-hpa's ginkgo e2e suite, in the style of
// upstream's test/e2e/autoscaling: "[sig-autoscaling] [Feature:HPA] ..."
// specs, with the labels Feature:HPA, Feature:HPAExternalMetricFallback,
// Feature:HPAScaleToZero, Serial and Disruptive.
//
// Run it with `make e2e`, which builds what it needs and runs
//
//	go tool ginkgo -p --fail-on-empty ./test/e2e/autoscaling
//
// Without KUBECONFIG, ginkgo's process 1 starts the local environment of
// test/e2e/framework (a local control plane, the test metrics adapter and
// two hpa-controller-manager replicas under the ServiceAccount of
// deploy/rbac.yaml) and stops it after the last spec; logs of every
// process stay under _output/localcluster/<run>/logs. With KUBECONFIG the
// suite uses that cluster; framework.EnvKubeconfig lists what it must run.
//
// With E2E_MODE=intree (make e2e-intree) process 1 starts the in-tree mode
// instead: the kube-apiserver and kube-controller-manager of make intree,
// kube-controller-manager's own HPA controller with KEP-5679's patch, the
// metrics adapter, and no hpa-controller-manager; the KEP specs then create
// native autoscaling/v2 HPAs, and the specs of hpa-controller-manager itself
// (label CRDMode) skip.
//
// Every spec works in a namespace of its own and with metric names of its
// own, so specs run in parallel; only those that disturb the controllers
// for everyone (killing the leader, editing its RBAC) are Serial.
package autoscaling
