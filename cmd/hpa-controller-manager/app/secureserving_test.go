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

package app

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	componentbaseconfig "k8s.io/component-base/config"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/options"
)

// testMetric is a series the secure port's /metrics must show to whoever
// may read it.
const testMetric = "kube_hpa_secure_port_test_total"

// configFromFlags is the configuration the command builds from args.
// Without an API server to delegate to, tokens cannot be reviewed; client
// certificates (--client-ca-file) and the always-allowed paths still work,
// which is enough to pin who gets what.
func configFromFlags(t *testing.T, args ...string) *config.Config {
	t.Helper()
	// A test run inside a pod must not delegate to that pod's cluster.
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	o, err := options.NewOptions()
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	for _, section := range o.Flags().FlagSets {
		fs.AddFlagSet(section)
	}
	if err := fs.Parse(append([]string{"--master=https://127.0.0.1:1", "--bind-address=127.0.0.1"}, args...)); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// secureServingConfig is the secure port's configuration from args, on a
// loopback listener of the test's.
func secureServingConfig(t *testing.T, args ...string) config.SecureServing {
	t.Helper()
	cfg := configFromFlags(t, args...)
	if cfg.SecureServing.Serving == nil {
		t.Fatal("the secure port is off")
	}
	cfg.SecureServing.Serving.Listener = listenLoopback(t)
	return cfg.SecureServing
}

func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// startSecureServer serves the health and metrics mux as Run does until
// the test ends, and returns its address.
func startSecureServer(t *testing.T, cfg config.SecureServing) string {
	t.Helper()
	registry := metrics.NewKubeRegistry()
	counter := metrics.NewCounter(&metrics.CounterOpts{Name: testMetric, Help: "A series for the test."})
	registry.MustRegister(counter)
	counter.Inc()
	port, err := newSecureServer(klog.Background(), cfg, healthMux(newHealthState(), registry, componentbaseconfig.DebuggingConfiguration{EnableProfiling: true}))
	if err != nil {
		t.Fatal(err)
	}
	return startPort(t, port)
}

// startPort serves port until the test ends and returns its address.
func startPort(t *testing.T, port *httpsPort) string {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- port.serve(ctx, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving ended with %v, want nil on shutdown", err)
		}
	})
	return port.serving.Listener.Addr().String()
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func get(t *testing.T, client *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestSecurePortAuthorizesEachRequest(t *testing.T) {
	ca, otherCA := newTestCA(t), newTestCA(t)
	serving := newSecretVolume(t, issueServing(t, ca, 1))
	cfg := secureServingConfig(t, "--tls-cert-file="+serving.certFile(), "--tls-private-key-file="+serving.keyFile(),
		"--client-ca-file="+writeFile(t, "client-ca.crt", ca.PEM()))
	addr := startSecureServer(t, cfg)

	admin := issueClient(t, ca, 11, "admin", "system:masters")
	cases := []struct {
		name     string
		path     string
		cert     *tls.Certificate // nil: no credentials at all
		wantCode int
		wantBody string
	}{
		{name: "an anonymous probe of /healthz is allowed", path: "/healthz", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "an anonymous probe of /readyz is allowed", path: "/readyz", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "an anonymous probe of /livez is allowed", path: "/livez", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "an anonymous scrape of /metrics is forbidden", path: "/metrics", wantCode: http.StatusForbidden,
			wantBody: `User \"system:anonymous\" cannot get path \"/metrics\"`},
		{name: "an authenticated user without the permission is forbidden /metrics", path: "/metrics",
			cert: ptr.To(issueClient(t, ca, 10, "someone")), wantCode: http.StatusForbidden,
			wantBody: `User \"someone\" cannot get path \"/metrics\"`},
		{name: "an authenticated and authorized user scrapes /metrics", path: "/metrics",
			cert: &admin, wantCode: http.StatusOK, wantBody: testMetric + " 1"},
		{name: "an anonymous request for a profile is forbidden", path: "/debug/pprof/heap?debug=1", wantCode: http.StatusForbidden,
			wantBody: `User \"system:anonymous\" cannot get path \"/debug/pprof/heap\"`},
		{name: "an authenticated and authorized user reads a profile", path: "/debug/pprof/heap?debug=1",
			cert: &admin, wantCode: http.StatusOK, wantBody: "heap profile"},
		{name: "a client certificate of an unknown CA is unauthorized", path: "/metrics",
			cert: ptr.To(issueClient(t, otherCA, 12, "admin", "system:masters")), wantCode: http.StatusUnauthorized},
		{name: "a client certificate of an unknown CA is unauthorized even for /healthz", path: "/healthz",
			cert: ptr.To(issueClient(t, otherCA, 13, "admin")), wantCode: http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clientTLS := &tls.Config{RootCAs: ca.Pool()}
			if tc.cert != nil {
				clientTLS.Certificates = []tls.Certificate{*tc.cert}
			}
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: clientTLS}}
			code, body := get(t, client, "https://"+addr+tc.path)
			if code != tc.wantCode {
				t.Errorf("GET %s answered %d, want %d; body:\n%s", tc.path, code, tc.wantCode, body)
			}
			if !strings.Contains(body, tc.wantBody) {
				t.Errorf("GET %s body does not contain %q:\n%s", tc.path, tc.wantBody, body)
			}
		})
	}
}

// TestSecurePortZeroServesNoSecurePort: --secure-port=0 leaves only what
// else is asked for.
func TestSecurePortZeroServesNoSecurePort(t *testing.T) {
	cfg := configFromFlags(t, "--secure-port=0")
	_, ctx := ktesting.NewTestContext(t)
	ports, err := newHTTPSPorts(ctx, cfg, nil, http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	defer ports.close()
	if ports.secure != nil || ports.webhook != nil {
		t.Errorf("ports %+v, want none", ports)
	}
}

// TestSecurePortFollowsTheClientCAFile replaces --client-ca-file and
// wants a client of the new CA authenticated without a restart: the
// client CA's controller runs, started by apiserver's Serve.
func TestSecurePortFollowsTheClientCAFile(t *testing.T) {
	ca, nextCA := newTestCA(t), newTestCA(t)
	serving := newSecretVolume(t, issueServing(t, ca, 1))
	clientCAFile := writeFile(t, "client-ca.crt", ca.PEM())
	addr := startSecureServer(t, secureServingConfig(t, "--tls-cert-file="+serving.certFile(), "--tls-private-key-file="+serving.keyFile(),
		"--client-ca-file="+clientCAFile))
	clientTLS := &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{issueClient(t, nextCA, 10, "admin", "system:masters")}}
	scrape := func() int {
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: clientTLS, DisableKeepAlives: true}}
		code, _ := get(t, client, "https://"+addr+"/metrics")
		return code
	}
	if code := scrape(); code != http.StatusUnauthorized {
		t.Fatalf("a client of a CA not yet trusted got %d, want 401", code)
	}
	if err := os.WriteFile(clientCAFile, nextCA.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	// Seen through a file watch; the ceiling only ends a broken test.
	deadline := time.Now().Add(3 * time.Minute)
	for code := scrape(); code != http.StatusOK; code = scrape() {
		if time.Now().After(deadline) {
			t.Fatalf("a client of the new CA still got %d after 3 minutes, want 200", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
