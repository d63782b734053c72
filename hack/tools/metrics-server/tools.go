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

// Package tools pins metrics-server, which scrapes the kubelets kwok emulates
// and serves metrics.k8s.io in the local control plane. Its module is its
// own so that metrics-server builds on the Kubernetes libraries of its
// release (v0.8.0's, v0.33): built on newer ones (kwok's), its generated
// OpenAPI models lack definitions those libraries ask for. v0.8.0 is the
// newest approved release.
package tools

import (
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
