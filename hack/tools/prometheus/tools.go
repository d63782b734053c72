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

// Package tools pins Prometheus, which the e2e suite and `make run
// METRICS=prometheus` run on loopback as the metrics provider behind the
// test metrics adapter, and promtool, which `make test-rules` runs on the
// alerting rules' unit tests. It lives in a module of its own because its
// dependency versions do not mix with the Kubernetes staging replace block
// of hack/tools; hack/build-upstream.sh builds cmd/prometheus and
// cmd/promtool from it.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
