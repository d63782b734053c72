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
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ControllerManagerMetrics returns kube-controller-manager's /metrics page,
// read on its secure port as the cluster's admin, whom its delegated
// authorization lets through.
func (c *Cluster) ControllerManagerMetrics(ctx context.Context) (string, error) {
	return c.componentMetrics(ctx, c.layout.controllerManagerPort)
}

// MetricsServerMetrics returns metrics-server's /metrics page, read as
// ControllerManagerMetrics reads kube-controller-manager's: its
// apiserver_request_total counts the resource metrics it served.
func (c *Cluster) MetricsServerMetrics(ctx context.Context) (string, error) {
	return c.componentMetrics(ctx, c.layout.metricsServerPort)
}

// componentMetrics reads /metrics of the component serving on port of
// 127.0.0.1, with the admin's token.
func (c *Cluster) componentMetrics(ctx context.Context, port int) (string, error) {
	client := &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{
			InsecureSkipVerify: true, //nolint:gosec // loopback, self-signed by the component
			MinVersion:         tls.VersionTLS12,
		}},
	}
	defer client.CloseIdleConnections()
	url := fmt.Sprintf("https://127.0.0.1:%d/metrics", port)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+c.restConfig.BearerToken)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %.200s", url, resp.Status, body)
	}
	return string(body), nil
}
