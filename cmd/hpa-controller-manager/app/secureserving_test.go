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
	"crypto/x509"
	"io"
	componentbaseconfig "k8s.io/component-base/config"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/options"
	"github.com/kube-hpa/kube-hpa/pkg/certreload/certreloadtest"
)

// testMetric is a series the secure port's /metrics must show to whoever
// may read it.
const testMetric = "kube_hpa_secure_port_test_total"

// secureServingConfig is the secure port's configuration as the command
// builds it from args, on a loopback port chosen by the test. Without an
// API server to delegate to, tokens cannot be reviewed; client
// certificates (--client-ca-file) and the always-allowed paths still work,
// which is enough to pin who gets what.
func secureServingConfig(t *testing.T, args ...string) config.SecureServing {
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
	if cfg.SecureServing.Address == "" {
		t.Fatal("the secure port is off")
	}
	return cfg.SecureServing
}

// startSecureServer serves the health and metrics mux as Run does, on a
// free loopback port, until the test ends, and returns its address.
func startSecureServer(t *testing.T, cfg config.SecureServing) string {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	registry := metrics.NewKubeRegistry()
	counter := metrics.NewCounter(&metrics.CounterOpts{Name: testMetric, Help: "A series for the test."})
	registry.MustRegister(counter)
	counter.Inc()
	s, err := newSecureServer(ctx, cfg, healthMux(newHealthState(), registry, componentbaseconfig.DebuggingConfiguration{EnableProfiling: true}))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.runOn(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving ended with %v, want nil on shutdown", err)
		}
	})
	return ln.Addr().String()
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
	ca, otherCA := certreloadtest.NewCA(t), certreloadtest.NewCA(t)
	serving := certreloadtest.NewSecretVolume(t, ca.Issue(t, 1))
	cfg := secureServingConfig(t, "--tls-cert-file="+serving.CertFile(), "--tls-private-key-file="+serving.KeyFile(),
		"--client-ca-file="+writeFile(t, "client-ca.crt", ca.PEM()))
	addr := startSecureServer(t, cfg)

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
			cert: ptr.To(ca.IssueClient(t, 10, "someone")), wantCode: http.StatusForbidden,
			wantBody: `User \"someone\" cannot get path \"/metrics\"`},
		{name: "an authenticated and authorized user scrapes /metrics", path: "/metrics",
			cert: ptr.To(ca.IssueClient(t, 11, "admin", "system:masters")), wantCode: http.StatusOK, wantBody: testMetric + " 1"},
		{name: "a client certificate of an unknown CA is unauthorized", path: "/metrics",
			cert: ptr.To(otherCA.IssueClient(t, 12, "admin", "system:masters")), wantCode: http.StatusUnauthorized},
		{name: "a client certificate of an unknown CA is unauthorized even for /healthz", path: "/healthz",
			cert: ptr.To(otherCA.IssueClient(t, 13, "admin")), wantCode: http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clientTLS := &tls.Config{RootCAs: ca.Pool}
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

// TestSecurePortServesARenewedCertificateWithoutARestart renews
// --tls-cert-file the way the kubelet updates a Secret volume and wants
// the new certificate on a new connection, the old one until then.
func TestSecurePortServesARenewedCertificateWithoutARestart(t *testing.T) {
	ca := certreloadtest.NewCA(t)
	first, renewed := ca.Issue(t, 1), ca.Issue(t, 2)
	vol := certreloadtest.NewSecretVolume(t, first)
	addr := startSecureServer(t, secureServingConfig(t, "--tls-cert-file="+vol.CertFile(), "--tls-private-key-file="+vol.KeyFile()))
	clientTLS := &tls.Config{RootCAs: ca.Pool}

	if got := certreloadtest.DialSerial(t, addr, clientTLS); got != first.Serial {
		t.Fatalf("served serial %d before the renewal, want %d", got, first.Serial)
	}
	vol.Update(t, renewed)
	// The files are looked at no more than once a second.
	deadline := time.Now().Add(10 * time.Second)
	for certreloadtest.DialSerial(t, addr, clientTLS) != renewed.Serial {
		if time.Now().After(deadline) {
			t.Fatalf("the renewed certificate (serial %d) was not served within 10s", renewed.Serial)
		}
		time.Sleep(100 * time.Millisecond)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: clientTLS}}
	if code, body := get(t, client, "https://"+addr+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz after the renewal answered %d: %s", code, body)
	}
}

// TestSecurePortServesASelfSignedCertificateWithoutFiles: with no
// --tls-cert-file, as kube-controller-manager without one, the port still
// serves, on a certificate for localhost made at start.
func TestSecurePortServesASelfSignedCertificateWithoutFiles(t *testing.T) {
	addr := startSecureServer(t, secureServingConfig(t))
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	state := conn.ConnectionState()
	_ = conn.Close()
	leaf := state.PeerCertificates[0]
	roots := x509.NewCertPool()
	for _, c := range state.PeerCertificates {
		roots.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost"}); err != nil {
		t.Errorf("the self-signed certificate does not verify for localhost against itself: %v", err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if code, body := get(t, client, "https://"+addr+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz answered %d: %s", code, body)
	}
}

// TestSecurePortKeepsTheTLSPolicy: with --tls-min-version=VersionTLS13 a
// TLS 1.2 client is refused at the handshake, a TLS 1.3 one served.
func TestSecurePortKeepsTheTLSPolicy(t *testing.T) {
	ca := certreloadtest.NewCA(t)
	serving := certreloadtest.NewSecretVolume(t, ca.Issue(t, 1))
	cfg := secureServingConfig(t, "--tls-cert-file="+serving.CertFile(), "--tls-private-key-file="+serving.KeyFile(),
		"--tls-min-version=VersionTLS13")
	addr := startSecureServer(t, cfg)
	for _, tc := range []struct {
		name    string
		max     uint16
		refused bool
	}{
		{name: "TLS 1.2 is refused", max: tls.VersionTLS12, refused: true},
		{name: "TLS 1.3 is served", max: tls.VersionTLS13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := tls.Dial("tcp", addr, &tls.Config{MaxVersion: tc.max, InsecureSkipVerify: true})
			if err == nil {
				_ = conn.Close()
			}
			if (err != nil) != tc.refused {
				t.Errorf("handshake with at most %x: %v, want refused: %v", tc.max, err, tc.refused)
			}
		})
	}
}
