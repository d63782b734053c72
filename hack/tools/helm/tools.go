//go:build tools

// Package tools pins Helm, which `make verify` runs on charts/kube-hpa (lint
// and template) and the e2e suite installs the chart with. A module of its
// own, like hack/tools/kwok: Helm's Kubernetes libraries are newer than the
// v1.36.3 staging modules of hack/tools.
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
)
