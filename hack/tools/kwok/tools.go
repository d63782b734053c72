//go:build tools

// Package tools pins kwok, which simulates the nodes of the local control
// plane. It lives in a module of its own because kwok's dependency versions
// do not mix with the Kubernetes staging replace block of hack/tools.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
