//go:build tools

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
