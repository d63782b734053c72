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
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

const pollInterval = 200 * time.Millisecond

// defaultWaitTimeout bounds a wait whose context has no deadline, so that a
// helper called with context.Background cannot hang a test forever.
const defaultWaitTimeout = 2 * time.Minute

// waitFor polls check until it reports done. It fails at once when a
// component has exited, with the end of that component's log, instead of
// waiting out the timeout for something that cannot happen any more.
func (c *Cluster) waitFor(ctx context.Context, what string, check func(context.Context) (bool, error)) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWaitTimeout)
		defer cancel()
	}
	logger := klog.FromContext(ctx)
	logger.V(1).Info("Waiting", "for", what)
	begin := time.Now()
	var lastErr error
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		for _, p := range c.components() {
			if err := p.running(); err != nil {
				return false, err
			}
		}
		done, err := check(ctx)
		if err != nil {
			lastErr = err
			return false, nil
		}
		return done, nil
	})
	if err != nil {
		if lastErr != nil && ctx.Err() != nil {
			return fmt.Errorf("waiting for %s: %w (last error: %v)", what, err, lastErr)
		}
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	logger.V(1).Info("Done waiting", "for", what, "took", time.Since(begin).Round(time.Millisecond))
	return nil
}

// httpGetOK reports whether GET url answers 200.
func httpGetOK(ctx context.Context, client *http.Client, url, token string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return true, nil
}

func (c *Cluster) etcdHealthy(ctx context.Context) (bool, error) {
	return httpGetOK(ctx, &http.Client{Timeout: 2 * time.Second}, c.layout.etcdURL()+"/health", "")
}

func (c *Cluster) apiServerReady(ctx context.Context) (bool, error) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.creds.ca.PEM())
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}
	defer client.CloseIdleConnections()
	return httpGetOK(ctx, client, c.layout.apiServerURL()+"/readyz", c.creds.adminToken)
}

// healthz checks the secure port of kube-controller-manager or
// kube-scheduler, which serve a self-signed certificate of their own making
// on loopback: there is nothing to verify it against.
func (c *Cluster) healthz(port int) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		client := &http.Client{
			Timeout: 2 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{
				InsecureSkipVerify: true, //nolint:gosec // loopback, self-signed by the component
				MinVersion:         tls.VersionTLS12,
			}},
		}
		defer client.CloseIdleConnections()
		return httpGetOK(ctx, client, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), "")
	}
}

func (c *Cluster) nodesReady(ctx context.Context) (bool, error) {
	for _, name := range c.nodeNames {
		node, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !nodeReady(node) {
			return false, nil
		}
	}
	return true, nil
}

func nodeReady(node *corev1.Node) bool {
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// defaultServiceAccountExists is how a test knows that pods can be created
// in namespace: the ServiceAccount admission plugin rejects pods until
// kube-controller-manager has created the namespace's default account.
func (c *Cluster) defaultServiceAccountExists(namespace string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		_, err := c.client.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
}
