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
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
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
	apiserveroptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// startWebhook serves the webhook as Run builds it from args, on a loopback
// listener of the test's, under limits, and returns its address.
func startWebhook(t *testing.T, limits webhook.Limits, args ...string) string {
	t.Helper()
	cfg := configFromFlags(t, args...)
	if cfg.Webhook.Serving == nil {
		t.Fatal("the webhook is off")
	}
	cfg.Webhook.Serving.Listener = listenLoopback(t)
	_, ctx := ktesting.NewTestContext(t)
	port, err := newWebhookServer(ctx, cfg.Webhook, webhookMux(cfg, nil), limits)
	if err != nil {
		t.Fatal(err)
	}
	return startPort(t, port)
}

// TestTheWebhookServerServesARenewedCertificateWithoutARestart runs the
// webhook server as Run builds it on loopback, renews its certificate the
// way the kubelet updates a Secret volume, and wants the new certificate on
// a new connection with every review in between answered.
func TestTheWebhookServerServesARenewedCertificateWithoutARestart(t *testing.T) {
	ca := newTestCA(t)
	first, renewed := issueServing(t, ca, 1), issueServing(t, ca, 2)
	vol := newSecretVolume(t, first)
	addr := startWebhook(t, webhook.DefaultLimits(), "--webhook-tls-cert-file="+vol.certFile(), "--webhook-tls-private-key-file="+vol.keyFile())
	url := "https://" + addr + webhook.Path
	clientTLS := &tls.Config{RootCAs: ca.Pool()}

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
	waitForReviews := func(n int64) {
		t.Helper()
		// Only there to end a broken test.
		deadline := time.Now().Add(time.Minute)
		for reviews.Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("still waiting for %d reviews after a minute", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitForReviews(10)
	vol.update(t, renewed)
	waitForSerial(t, addr, clientTLS, serialOf(renewed))
	waitForReviews(reviews.Load() + 10)
	stopLoad()

	if len(failures) > 0 {
		t.Errorf("%d of %d reviews failed during the renewal, the first: %v", len(failures), reviews.Load(), failures[0])
	}
	if !servedSerials[serialOf(first)] || !servedSerials[serialOf(renewed)] {
		t.Errorf("reviews were served certificates %v, want both %d and %d", servedSerials, serialOf(first), serialOf(renewed))
	}
}

// TestTheWebhookServesItsOwnCertificate runs both HTTPS ports as Run binds
// them and asks each for its certificate.
func TestTheWebhookServesItsOwnCertificate(t *testing.T) {
	ca := newTestCA(t)
	shared, own := newSecretVolume(t, issueServing(t, ca, 1)), newSecretVolume(t, issueServing(t, ca, 2))
	sharedFlags := []string{"--tls-cert-file=" + shared.certFile(), "--tls-private-key-file=" + shared.keyFile()}
	cases := []struct {
		name                          string
		args                          []string
		wantSecureSerial, wantWebhook int64
	}{
		{name: "without --webhook-tls-cert-file the webhook serves --tls-cert-file's",
			args: sharedFlags, wantSecureSerial: 1, wantWebhook: 1},
		{name: "with --webhook-tls-cert-file the webhook serves its own and the secure port --tls-cert-file's",
			args:             append([]string{"--webhook-tls-cert-file=" + own.certFile(), "--webhook-tls-private-key-file=" + own.keyFile()}, sharedFlags...),
			wantSecureSerial: 1, wantWebhook: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configFromFlags(t, tc.args...)
			cfg.SecureServing.Serving.Listener = listenLoopback(t)
			cfg.Webhook.Serving.Listener = listenLoopback(t)
			_, ctx := ktesting.NewTestContext(t)
			ports, err := newHTTPSPorts(ctx, cfg, nil, http.NotFoundHandler())
			if err != nil {
				t.Fatal(err)
			}
			clientTLS := &tls.Config{RootCAs: ca.Pool()}
			for what, want := range map[*httpsPort]int64{ports.secure: tc.wantSecureSerial, ports.webhook: tc.wantWebhook} {
				if got := servedSerial(t, startPort(t, what), clientTLS); got != want {
					t.Errorf("%s served serial %d, want %d", what.name, got, want)
				}
			}
		})
	}
}

// TestTheWebhookCutsOffASlowBodyOverEitherProtocol sends a review's body a
// byte at a time over HTTP/1.1, as the API server calls webhooks, and over
// HTTP/2, which the server also offers: the read deadline of pkg/webhook's
// limits holds on either, through apiserver's server, and the review is
// answered 408 long before the body would be complete.
func TestTheWebhookCutsOffASlowBodyOverEitherProtocol(t *testing.T) {
	ca := newTestCA(t)
	vol := newSecretVolume(t, issueServing(t, ca, 1))
	limits := webhook.DefaultLimits()
	limits.ReadTimeout = 200 * time.Millisecond
	addr := startWebhook(t, limits, "--tls-cert-file="+vol.certFile(), "--tls-private-key-file="+vol.keyFile())
	for _, tc := range []struct {
		name      string
		protocols []string
		wantMajor int
	}{
		{name: "HTTP/1.1", protocols: []string{"http/1.1"}, wantMajor: 1},
		{name: "HTTP/2", protocols: []string{"h2"}, wantMajor: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), NextProtos: tc.protocols}, ForceAttemptHTTP2: tc.wantMajor == 2}
			defer transport.CloseIdleConnections()
			const bodyBytes = 500 // a byte every 10ms: 5s
			req, err := http.NewRequest(http.MethodPost, "https://"+addr+webhook.Path, &drip{left: bodyBytes, every: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = bodyBytes
			req.Header.Set("Content-Type", "application/json")
			start := time.Now()
			resp, err := (&http.Client{Transport: transport, Timeout: 30 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout || resp.ProtoMajor != tc.wantMajor {
				t.Errorf("got %s over HTTP/%d, want 408 over HTTP/%d", resp.Status, resp.ProtoMajor, tc.wantMajor)
			}
			if took := time.Since(start); took > 4*time.Second {
				t.Errorf("answered after %v, not at the read timeout", took)
			}
		})
	}
}

// drip is a body that arrives a byte at a time.
type drip struct {
	left  int
	every time.Duration
}

func (d *drip) Read(p []byte) (int, error) {
	if d.left == 0 {
		return 0, io.EOF
	}
	time.Sleep(d.every)
	p[0] = ' '
	d.left--
	return 1, nil
}

func TestRunRefusesToStartWithACertificateThatDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca := newTestCA(t)
	a, b := issueServing(t, ca, 1), issueServing(t, ca, 2)
	cases := []struct {
		name      string
		cert, key []byte
		wantCause string
	}{
		{name: "files that do not exist", wantCause: "no such file"},
		{name: "a key of another certificate", cert: a.CertPEM, key: b.KeyPEM, wantCause: "private key does not match"},
		{name: "an empty certificate file", cert: []byte{}, key: a.KeyPEM, wantCause: "missing content"},
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
				Webhook: config.Webhook{
					// Never bound: the certificate is loaded first.
					Serving:  &apiserveroptions.SecureServingOptions{BindAddress: net.ParseIP("127.0.0.1"), BindPort: 9443},
					CertFile: certFile, KeyFile: keyFile,
				},
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
