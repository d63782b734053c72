//go:build tools

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
