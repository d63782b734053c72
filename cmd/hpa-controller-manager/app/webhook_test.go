package app

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
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
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// TestTheWebhookServerServesARenewedCertificateWithoutARestart runs the
// webhook server as Run builds it on loopback, renews its certificate the
// way the kubelet updates a Secret volume, and wants the new certificate on
// a new connection with every review in between answered.
func TestTheWebhookServerServesARenewedCertificateWithoutARestart(t *testing.T) {
	pool, pairs := servingPairs(t, 2)
	vol := newTestSecretVolume(t, pairs[0])
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	cfg := &config.Config{FeatureGates: features.NewFeatureGate(), Webhook: config.Webhook{
		Address: "127.0.0.1:0", CertFile: filepath.Join(vol.dir, "tls.crt"), KeyFile: filepath.Join(vol.dir, "tls.key"),
	}}
	srv, err := newWebhookServer(ctx, cfg)
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
	clientTLS := &tls.Config{RootCAs: pool}

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
	vol.update(t, pairs[1])
	waitFor("the renewed certificate on a new connection", func() bool { return dialSerial(t, ln.Addr().String(), clientTLS) == 2 })
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
	_, pairs := servingPairs(t, 1)
	vol := newTestSecretVolume(t, pairs[0])
	_, ctx := ktesting.NewTestContext(t)
	srv, err := newWebhookServer(ctx, &config.Config{FeatureGates: features.NewFeatureGate(), Webhook: config.Webhook{
		Address: "127.0.0.1:9443", CertFile: filepath.Join(vol.dir, "tls.crt"), KeyFile: filepath.Join(vol.dir, "tls.key"),
	}})
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
	_, pairs := servingPairs(t, 2)
	cases := []struct {
		name      string
		cert, key []byte
		wantCause string
	}{
		{name: "files that do not exist", wantCause: "no such file"},
		{name: "a key of another certificate", cert: pairs[0].certPEM, key: pairs[1].keyPEM, wantCause: "private key does not match"},
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

func dialSerial(t *testing.T, addr string, cfg *tls.Config) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

type testServingPair struct{ certPEM, keyPEM []byte }

// servingPairs issues n leaves for 127.0.0.1, serials 1 to n, from one
// self-signed CA whose pool verifies them all.
func servingPairs(t *testing.T, n int) (*x509.CertPool, []testServingPair) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1000), Subject: pkix.Name{CommonName: "webhook test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	var pairs []testServingPair
	for serial := int64(1); serial <= int64(n); serial++ {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "webhook"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, testServingPair{
			certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		})
	}
	return pool, pairs
}

// testSecretVolume lays its files out as the kubelet projects a Secret
// (tls.crt -> ..data/tls.crt, ..data -> a generation directory) and
// updates them by swapping the ..data symlink.
type testSecretVolume struct {
	dir        string
	generation int
}

func newTestSecretVolume(t *testing.T, p testServingPair) *testSecretVolume {
	t.Helper()
	v := &testSecretVolume{dir: t.TempDir()}
	v.update(t, p)
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func (v *testSecretVolume) update(t *testing.T, p testServingPair) {
	t.Helper()
	v.generation++
	gen := fmt.Sprintf("..gen_%d", v.generation)
	if err := os.Mkdir(filepath.Join(v.dir, gen), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": p.certPEM, "tls.key": p.keyPEM} {
		if err := os.WriteFile(filepath.Join(v.dir, gen, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(gen, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		t.Fatal(err)
	}
}
