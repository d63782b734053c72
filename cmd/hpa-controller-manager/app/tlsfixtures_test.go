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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testCA signs the certificates of a test: every leaf is trusted by a
// client holding pool, so a renewal changes what is served without
// changing what verifies.
type testCA struct {
	// pool holds the CA's certificate, for a client's RootCAs.
	pool *x509.CertPool
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// newTestCA makes a self-signed CA valid from an hour ago to an hour from
// now.
func newTestCA(t testing.TB) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kube-hpa test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{pool: pool, cert: cert, key: key}
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// servingPair is a serving leaf and its key, in the PEM a Secret holds.
// Tests tell pairs apart by serial, which is what a client sees of the
// certificate it was served.
type servingPair struct {
	serial          int64
	certPEM, keyPEM []byte
}

// issue signs a serving leaf with its own key, for dnsNames, or for
// 127.0.0.1 and localhost when none are given.
func (ca *testCA) issue(t testing.TB, serial int64, dnsNames ...string) servingPair {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: fmt.Sprintf("leaf %d", serial)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     dnsNames,
	}
	if len(dnsNames) == 0 {
		tmpl.IPAddresses, tmpl.DNSNames = []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return servingPair{
		serial:  serial,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
}

// caPEM is the CA's certificate, for a --client-ca-file.
func (ca *testCA) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
}

// issueClient signs a client certificate for user in groups, as
// Kubernetes reads them: the common name is the user, each organization a
// group.
func (ca *testCA) issueClient(t testing.TB, serial int64, user string, groups ...string) tls.Certificate {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: user, Organization: groups},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// secretVolume lays its files out the way the kubelet projects a Secret:
// tls.crt -> ..data/tls.crt, ..data -> ..<generation>/, and an update
// writes a new generation directory, renames a fresh symlink over ..data
// and removes the old generation, so both files change in one step.
type secretVolume struct {
	dir        string
	generation int
}

// newSecretVolume projects p into a new temporary directory.
func newSecretVolume(t testing.TB, p servingPair) *secretVolume {
	t.Helper()
	v := &secretVolume{dir: t.TempDir()}
	v.update(t, p)
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// certFile and keyFile are the paths a server is given, through the
// symlinks.
func (v *secretVolume) certFile() string { return filepath.Join(v.dir, "tls.crt") }
func (v *secretVolume) keyFile() string  { return filepath.Join(v.dir, "tls.key") }

// update replaces both files with p as the kubelet does when the Secret
// changes.
func (v *secretVolume) update(t testing.TB, p servingPair) {
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
	if v.generation > 1 {
		if err := os.RemoveAll(filepath.Join(v.dir, fmt.Sprintf("..gen_%d", v.generation-1))); err != nil {
			t.Fatal(err)
		}
	}
}

// servedSerial opens a new connection, a new handshake, and returns the
// serial of the leaf the server presented.
func servedSerial(t testing.TB, addr string, cfg *tls.Config) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// waitForSerial dials new connections until one is served the leaf of
// serial: a reload is an event of its own, seen by the server through a
// file watch (a periodic look at the files backs it up once a minute),
// so the test waits on what is served, with a generous ceiling only
// there to end a broken test.
func waitForSerial(t testing.TB, addr string, cfg *tls.Config, serial int64) {
	t.Helper()
	const ceiling = 3 * time.Minute
	deadline := time.Now().Add(ceiling)
	for got := servedSerial(t, addr, cfg); got != serial; got = servedSerial(t, addr, cfg) {
		if time.Now().After(deadline) {
			t.Fatalf("still served serial %d after %v, want %d", got, ceiling, serial)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
