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

// Package tools pins kwok, which simulates the nodes of the local control
// plane and their kubelets' /metrics/resource, and metrics-server, which
// scrapes them and serves metrics.k8s.io. They live in a module of their
// own because their dependency versions do not mix with the Kubernetes
// staging replace block of hack/tools; together, because metrics-server
// builds on kwok's Kubernetes libraries (v0.36) and so adds only its own
// packages to the build.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
