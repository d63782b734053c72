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

// Package tools pins Helm, which `make verify` runs on charts/kube-hpa (lint
// and template) and the e2e suite installs the chart with: v3.21.4, the
// newest approved v3 release (v3.22.0 is served but not approved). Its
// Kubernetes libraries are raised to the cluster's release (v0.37.2), which
// Helm also takes as the default Kubernetes version of template and lint. A
// module of its own, like hack/tools/kwok: Helm's other dependencies are newer
// than those the replace block of hack/tools pins for the upstream binaries.
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
)
