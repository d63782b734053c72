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

package localcluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"time"
)

// The resource metrics pipeline of Options.MetricsServer, as clusters run
// it: metrics-server scrapes every node's kubelet /metrics/resource and
// serves metrics.k8s.io through the aggregator. Here kwok plays the
// kubelets (kwokConfigDirs' metrics/resource and metrics/usage), so a
// pod's usage is what its annotations kwok.x-k8s.io/usage-cpu and
// kwok.x-k8s.io/usage-memory say, and nothing between metrics-server and
// an HPA controller is a fake.
const (
	binMetricsServer = "metrics-server"
	// MetricsGroup and MetricsVersion are the API that metrics-server
	// serves: v1beta1.metrics.k8s.io.
	MetricsGroup   = "metrics.k8s.io"
	MetricsVersion = "v1beta1"
	// MetricsResolution is metrics-server's --metric-resolution, the
	// smallest it takes: a usage change reaches metrics.k8s.io within
	// about two of them (a CPU rate needs two scrapes).
	MetricsResolution = 10 * time.Second
	// resourceMetricsPathAnnotation, on a node, tells metrics-server the
	// path of the node's /metrics/resource: kwok serves every node's
	// under a path of its own on one port.
	resourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
)

// UsageCPUAnnotation and UsageMemoryAnnotation set a pod's usage, as
// quantities ("250m", "64Mi"), in kwok's emulated kubelet; a pod without
// them uses 1m of CPU and 1Mi of memory.
const (
	UsageCPUAnnotation    = "kwok.x-k8s.io/usage-cpu"
	UsageMemoryAnnotation = "kwok.x-k8s.io/usage-memory"
)

// metricsServerServiceHost is the name the aggregator checks in
// metrics-server's serving certificate.
func metricsServerServiceHost() string { return APIServiceServerName(MetricsGroup, MetricsVersion) }

// resourceMetricsPath is where kwok serves node's /metrics/resource.
func resourceMetricsPath(node string) string { return "/metrics/nodes/" + node + "/metrics/resource" }

func metricsServerFlags(l layout) []string {
	return []string{
		"--kubeconfig=" + l.kubeconfig,
		"--authentication-kubeconfig=" + l.kubeconfig,
		"--authorization-kubeconfig=" + l.kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(l.metricsServerPort),
		"--tls-cert-file=" + l.metricsServerCert,
		"--tls-private-key-file=" + l.metricsServerKey,
		// The nodes' InternalIP and kubelet port are kwok's server, whose
		// certificate the cluster CA signed: checked as a kubelet's is.
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-use-node-status-port",
		"--kubelet-certificate-authority=" + l.caCert,
		"--metric-resolution=" + MetricsResolution.String(),
		// It must be below the resolution.
		"--kubelet-request-timeout=" + (MetricsResolution / 2).String(),
	}
}

// startMetricsServer starts metrics-server and registers it as
// v1beta1.metrics.k8s.io; start waits for the APIService with the rest.
func (c *Cluster) startMetricsServer(ctx context.Context) error {
	if err := c.startComponent(ctx, binMetricsServer, metricsServerFlags(c.layout)); err != nil {
		return err
	}
	return c.RegisterAPIService(ctx, MetricsGroup, MetricsVersion, c.layout.metricsServerPort, c.CABundle())
}

// KillMetricsServer kills metrics-server with SIGKILL, as a crashed or
// evicted metrics-server goes: metrics.k8s.io answers 503 until
// RestartMetricsServer. Its exit is not taken for a failed component.
func (c *Cluster) KillMetricsServer() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errors.New("the cluster is stopped")
	}
	i, err := c.componentIndex(binMetricsServer)
	if err != nil {
		return err
	}
	p := c.procs[i]
	p.down.Store(true)
	if err := syscall.Kill(-p.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing metrics-server (pid %d): %w", p.pid(), err)
	}
	<-p.exited
	return nil
}

// RestartMetricsServer starts metrics-server again (after
// KillMetricsServer, or in place of a running one) and returns once
// metrics.k8s.io is Available.
func (c *Cluster) RestartMetricsServer(ctx context.Context) (ComponentStatus, error) {
	return c.restart(ctx, binMetricsServer, c.apiServiceAvailable(MetricsGroup, MetricsVersion))
}
