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
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/certreload/certreloadtest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// TestTheWebhookServerServesARenewedCertificateWithoutARestart runs the
// webhook server as Run builds it on loopback, renews its certificate the
// way the kubelet updates a Secret volume, and wants the new certificate on
// a new connection with every review in between answered.
func TestTheWebhookServerServesARenewedCertificateWithoutARestart(t *testing.T) {
	ca := certreloadtest.NewCA(t)
	first, renewed := ca.Issue(t, 1), ca.Issue(t, 2)
	vol := certreloadtest.NewSecretVolume(t, first)
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	cfg := &config.Config{FeatureGates: features.NewFeatureGate(), Webhook: config.Webhook{
		Address: "127.0.0.1:0", CertFile: vol.CertFile(), KeyFile: vol.KeyFile(),
	}}
	srv, err := newWebhookServer(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", cfg.Webhook.Address)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serveOn(ctx, srv, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving ended with %v, want nil on shutdown", err)
		}
	}()
	url := "https://" + ln.Addr().String() + webhook.Path
	clientTLS := &tls.Config{RootCAs: ca.Pool}

	var reviews atomic.Int64
	var mu sync.Mutex
	var failures []error
	servedSerials := map[int64]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: clientTLS, DisableKeepAlives: true}}
	stopLoad := sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
	})
	defer stopLoad()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				serial, err := postReview(client, url)
				mu.Lock()
				if err != nil {
					failures = append(failures, err)
				} else {
					servedSerials[serial] = true
				}
				mu.Unlock()
				reviews.Add(1)
			}
		}()
	}
	waitFor := func(what string, done func() bool) {
		t.Helper()
		// Only there to end a broken test: the certificate is looked at
		// once a second.
		deadline := time.Now().Add(30 * time.Second)
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("still waiting for %s after 30s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("reviews with the first certificate", func() bool { return reviews.Load() >= 10 })
	vol.Update(t, renewed)
	waitFor("the renewed certificate on a new connection", func() bool { return certreloadtest.DialSerial(t, ln.Addr().String(), clientTLS) == 2 })
	after := reviews.Load()
	waitFor("reviews with the renewed certificate", func() bool { return reviews.Load() >= after+10 })
	stopLoad()

	if len(failures) > 0 {
		t.Errorf("%d of %d reviews failed during the renewal, the first: %v", len(failures), reviews.Load(), failures[0])
	}
	if !servedSerials[1] || !servedSerials[2] {
		t.Errorf("reviews were served certificates %v, want both 1 and 2", servedSerials)
	}
}

func TestTheWebhookServerHasTheWebhooksLimits(t *testing.T) {
	vol := certreloadtest.NewSecretVolume(t, certreloadtest.NewCA(t).Issue(t, 1))
	_, ctx := ktesting.NewTestContext(t)
	srv, err := newWebhookServer(ctx, &config.Config{FeatureGates: features.NewFeatureGate(), Webhook: config.Webhook{
		Address: "127.0.0.1:9443", CertFile: vol.CertFile(), KeyFile: vol.KeyFile(),
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := webhook.DefaultLimits()
	// MaxInFlight lives in the handler, where pkg/webhook's tests see it.
	got := webhook.Limits{ReadTimeout: srv.ReadTimeout, WriteTimeout: srv.WriteTimeout, IdleTimeout: srv.IdleTimeout,
		MaxHeaderBytes: srv.MaxHeaderBytes, MaxInFlight: want.MaxInFlight}
	if got != want || srv.Addr != "127.0.0.1:9443" || srv.TLSConfig == nil || srv.TLSConfig.GetCertificate == nil {
		t.Errorf("server limits %+v at %q with TLS %v, want %+v at 127.0.0.1:9443 with a GetCertificate", got, srv.Addr, srv.TLSConfig, want)
	}
}

func TestRunRefusesToStartWithACertificateThatDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca := certreloadtest.NewCA(t)
	a, b := ca.Issue(t, 1), ca.Issue(t, 2)
	cases := []struct {
		name      string
		cert, key []byte
		wantCause string
	}{
		{name: "files that do not exist", wantCause: "no such file"},
		{name: "a key of another certificate", cert: a.CertPEM, key: b.KeyPEM, wantCause: "private key does not match"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for file, data := range map[string][]byte{certFile: tc.cert, keyFile: tc.key} {
				_ = os.Remove(file)
				if data != nil {
					if err := os.WriteFile(file, data, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			_, ctx := ktesting.NewTestContext(t)
			cfg := &config.Config{
				RESTConfig:   &rest.Config{Host: "https://127.0.0.1:1"},
				FeatureGates: features.NewFeatureGate(),
				Webhook:      config.Webhook{Address: "127.0.0.1:0", CertFile: certFile, KeyFile: keyFile},
			}
			err := Run(ctx, cfg)
			if err == nil {
				t.Fatal("Run started")
			}
			for _, want := range []string{certFile, keyFile, tc.wantCause} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// postReview sends one review and returns the serial of the certificate
// the connection was served.
func postReview(client *http.Client, url string) (int64, error) {
	body, err := json.Marshal(admissionv1.AdmissionReview{Request: &admissionv1.AdmissionRequest{UID: "u", Operation: admissionv1.Delete}})
	if err != nil {
		return 0, err
	}
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil || resp.StatusCode != http.StatusOK || review.Response == nil || review.Response.UID != "u" {
		return 0, fmt.Errorf("%s, decoding %v, response %+v", resp.Status, err, review.Response)
	}
	return resp.TLS.PeerCertificates[0].SerialNumber.Int64(), nil
}
