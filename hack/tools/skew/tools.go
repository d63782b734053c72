//go:build tools

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

// Package tools pins the control plane of the previous Kubernetes minor,
// v1.36.3 (the latest v1.36 patch), which `make e2e-skew` runs the e2e suite
// against: kube-apiserver, kube-controller-manager and kube-scheduler,
// unmodified, built into _output/bin/v1.36.3 by hack/build-upstream.sh skew.
// A module of its own, as each Kubernetes release has its own replace block
// of staging modules; etcd, kubectl and kwok stay those of hack/tools.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
