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
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSecurePortServesARenewedCertificateWithoutARestart renews
// --tls-cert-file the way the kubelet updates a Secret volume and wants
// the new certificate on a new connection.
func TestSecurePortServesARenewedCertificateWithoutARestart(t *testing.T) {
	ca := newTestCA(t)
	first, renewed := issueServing(t, ca, 1), issueServing(t, ca, 2)
	vol := newSecretVolume(t, first)
	addr := startSecureServer(t, secureServingConfig(t, "--tls-cert-file="+vol.certFile(), "--tls-private-key-file="+vol.keyFile()))
	clientTLS := &tls.Config{RootCAs: ca.Pool()}

	if got := servedSerial(t, addr, clientTLS); got != serialOf(first) {
		t.Fatalf("served serial %d before the renewal, want %d", got, serialOf(first))
	}
	vol.update(t, renewed)
	waitForSerial(t, addr, clientTLS, serialOf(renewed))
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: clientTLS}}
	if code, body := get(t, client, "https://"+addr+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz after the renewal answered %d: %s", code, body)
	}
}

// TestSecurePortHandshakesFollowTheTLSFlags dials the secure port as
// clients of different names and TLS versions would.
func TestSecurePortHandshakesFollowTheTLSFlags(t *testing.T) {
	ca := newTestCA(t)
	defaultPair := newSecretVolume(t, issueServing(t, ca, 1))
	sniPair := newSecretVolume(t, issueServing(t, ca, 2, "metrics.kube-hpa.example"))
	certFlags := []string{"--tls-cert-file=" + defaultPair.certFile(), "--tls-private-key-file=" + defaultPair.keyFile()}
	type handshake struct {
		serverName string
		maxVersion uint16 // 0: Go's highest
		wantSerial int64  // 0: the handshake is refused
	}
	cases := []struct {
		name       string
		args       []string
		handshakes []handshake
	}{
		{name: "--tls-min-version=VersionTLS13 refuses a TLS 1.2 client and serves a TLS 1.3 one",
			args: append([]string{"--tls-min-version=VersionTLS13"}, certFlags...),
			handshakes: []handshake{
				{serverName: "localhost", maxVersion: tls.VersionTLS12},
				{serverName: "localhost", maxVersion: tls.VersionTLS13, wantSerial: 1},
			}},
		{name: "TLS 1.2 is served by default",
			args:       certFlags,
			handshakes: []handshake{{serverName: "localhost", maxVersion: tls.VersionTLS12, wantSerial: 1}}},
		{name: "--tls-sni-cert-key serves its certificate to a client asking for its name, the default one to others",
			args: append([]string{"--tls-sni-cert-key=" + sniPair.certFile() + "," + sniPair.keyFile()}, certFlags...),
			handshakes: []handshake{
				{serverName: "metrics.kube-hpa.example", wantSerial: 2},
				{serverName: "localhost", wantSerial: 1},
			}},
		{name: "--tls-sni-cert-key's explicit names take the place of the certificate's",
			args:       append([]string{"--tls-sni-cert-key=" + sniPair.certFile() + "," + sniPair.keyFile() + ":localhost"}, certFlags...),
			handshakes: []handshake{{serverName: "localhost", wantSerial: 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := startSecureServer(t, secureServingConfig(t, tc.args...))
			for _, h := range tc.handshakes {
				// The serial says which certificate was served, whether
				// or not it is for the name asked.
				clientTLS := &tls.Config{ServerName: h.serverName, MaxVersion: h.maxVersion, InsecureSkipVerify: true}
				conn, err := tls.Dial("tcp", addr, clientTLS)
				if h.wantSerial == 0 {
					if err == nil {
						_ = conn.Close()
						t.Errorf("%s with at most %x: served, want refused", h.serverName, h.maxVersion)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s with at most %x: %v", h.serverName, h.maxVersion, err)
					continue
				}
				got := conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
				_ = conn.Close()
				if got != h.wantSerial {
					t.Errorf("%s: served serial %d, want %d", h.serverName, got, h.wantSerial)
				}
			}
		})
	}
}

// TestSecurePortMakesASelfSignedCertificateWithoutFiles: with no
// --tls-cert-file, as kube-controller-manager without one, the port still
// serves, on a certificate for localhost made at start: in memory by
// default, so that a read-only container can serve it; in --cert-dir,
// and kept there for the next start, when one is given.
func TestSecurePortMakesASelfSignedCertificateWithoutFiles(t *testing.T) {
	cases := []struct {
		name      string
		certDir   bool
		wantFiles []string
		wantKept  bool
	}{
		{name: "without --cert-dir the certificate is made in memory and nothing is written"},
		{name: "with --cert-dir the certificate is written there and served again at the next start", certDir: true,
			wantFiles: []string{"hpa-controller-manager.crt", "hpa-controller-manager.key"}, wantKept: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// apiserver's own default directory is relative: anything
			// written would land here.
			t.Chdir(dir)
			var args []string
			if tc.certDir {
				args = append(args, "--cert-dir="+filepath.Join(dir, "certs"))
			}
			first := selfSignedLeaf(t, startSecureServer(t, secureServingConfig(t, args...)))
			second := selfSignedLeaf(t, startSecureServer(t, secureServingConfig(t, args...)))
			if kept := first.Equal(second); kept != tc.wantKept {
				t.Errorf("the second start served the first's certificate: %v, want %v", kept, tc.wantKept)
			}
			var written []string
			_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					written = append(written, d.Name())
				}
				return nil
			})
			if strings.Join(written, ",") != strings.Join(tc.wantFiles, ",") {
				t.Errorf("files written %q, want %q", written, tc.wantFiles)
			}
		})
	}
}

// selfSignedLeaf dials addr and returns the leaf it serves, once it has
// checked that the leaf verifies for localhost against the chain served
// with it.
func selfSignedLeaf(t *testing.T, addr string) *x509.Certificate {
	t.Helper()
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
	return leaf
}
