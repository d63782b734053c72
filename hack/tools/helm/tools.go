//go:build tools

// Package tools pins Helm, which `make verify` runs on charts/kube-hpa (lint
// and template) and the e2e suite installs the chart with. A module of its
// own, like hack/tools/kwok: Helm's Kubernetes libraries (v0.37.0) are not
// the v1.37.2 staging modules that the replace block of hack/tools forces.
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
)
