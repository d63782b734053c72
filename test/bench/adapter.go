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

package bench

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// The aggregated API the adapter serves for the workload.
const (
	externalGroup   = "external.metrics.k8s.io"
	externalVersion = "v1beta1"
	// metricsConfigMap is the adapter's ConfigMap, in Namespace.
	metricsConfigMap = "test-metrics"
)

// adapter is the running test metrics adapter.
type adapter struct {
	proc *process
	port int
	http *http.Client
}

// startAdapter runs _output/bin/metrics-adapter on a free loopback port,
// with a serving certificate of the cluster CA, and registers it as
// external.metrics.k8s.io. The ConfigMap should exist already.
func startAdapter(ctx context.Context, cluster *localcluster.Cluster, binDir, dir string) (*adapter, error) {
	certPEM, keyPEM, err := cluster.IssueServingCert(
		localcluster.APIServiceServerName(externalGroup, externalVersion), "localhost", "127.0.0.1")
	if err != nil {
		return nil, err
	}
	certFile, keyFile := filepath.Join(dir, "adapter.crt"), filepath.Join(dir, "adapter.key")
	for file, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	proc, err := startProcess("metrics-adapter", filepath.Join(binDir, "metrics-adapter"), filepath.Join(dir, "metrics-adapter.log"), []string{
		"--kubeconfig=" + cluster.Kubeconfig(),
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + certFile,
		"--tls-private-key-file=" + keyFile,
		"--configmap-namespace=" + Namespace,
		"--configmap-name=" + metricsConfigMap,
	})
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cluster.CABundle())
	a := &adapter{proc: proc, port: port, http: &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS12}},
	}}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := proc.alive(); err != nil {
			return false, err
		}
		_, err := a.get(ctx, "/readyz")
		return err == nil, nil
	})
	if err == nil {
		err = cluster.RegisterAPIService(ctx, externalGroup, externalVersion, port, cluster.CABundle())
	}
	if err == nil {
		err = cluster.WaitAPIServiceAvailable(ctx, externalGroup, externalVersion)
	}
	if err != nil {
		proc.stop(5 * time.Second)
		return nil, fmt.Errorf("starting the metrics adapter (log %s): %w", proc.logPath, err)
	}
	return a, nil
}

func (a *adapter) get(ctx context.Context, path string) ([]byte, error) {
	return httpGet(ctx, a.http, fmt.Sprintf("https://localhost:%d%s", a.port, path))
}

// externalFetches is the adapter's count of external metric fetches so
// far, whatever their outcome.
func (a *adapter) externalFetches(ctx context.Context) (float64, error) {
	body, err := a.get(ctx, "/debug/fetches")
	if err != nil {
		return 0, err
	}
	var doc struct {
		Fetches []struct {
			API   string  `json:"api"`
			Count float64 `json:"count"`
		} `json:"fetches"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return 0, fmt.Errorf("decoding /debug/fetches: %w", err)
	}
	var total float64
	for _, f := range doc.Fetches {
		if f.API == "external" {
			total += f.Count
		}
	}
	return total, nil
}

func (a *adapter) stop(ctx context.Context, cluster *localcluster.Cluster) error {
	// Unregister first: an unavailable APIService blocks namespace deletion.
	err := cluster.UnregisterAPIService(ctx, externalGroup, externalVersion)
	a.proc.stop(5 * time.Second)
	return err
}

// freePort returns a port that was free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
