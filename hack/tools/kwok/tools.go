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
// plane and their kubelets' /metrics/resource (metrics-server, which scrapes
// them, is pinned in hack/tools/metrics-server). It lives in a module of its
// own because its dependency versions do not mix with the Kubernetes staging
// replace block of hack/tools.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
