//go:build tools

// Package tools pins the upstream programs kube-hpa builds from source: the
// code generators of hack/update-codegen.sh and the Kubernetes v1.37.2
// binaries of the local control plane. Nothing here is downloaded prebuilt.
package tools

import (
	_ "go.etcd.io/etcd/server/v3/etcdmain"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
