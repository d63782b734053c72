package certreload

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

// testCA signs the leaves of a test: pairs A and B are both trusted by a
// client holding its pool, so a rotation changes what is served without
// changing what verifies.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "certreload test CA"},
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
	return &testCA{cert: cert, key: key, pool: pool}
}

// testPair is a leaf for 127.0.0.1 and localhost, told apart by serial.
type testPair struct {
	serial          int64
	certPEM, keyPEM []byte
}

func (ca *testCA) issue(t *testing.T, serial int64) testPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: fmt.Sprintf("leaf %d", serial)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return testPair{
		serial:  serial,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
}

// issueSameSize issues a leaf whose files are exactly as long as like's,
// the case where only the contents tell a rewrite apart.
func (ca *testCA) issueSameSize(t *testing.T, serial int64, like testPair) testPair {
	t.Helper()
	for range 200 {
		p := ca.issue(t, serial)
		if len(p.certPEM) == len(like.certPEM) && len(p.keyPEM) == len(like.keyPEM) {
			return p
		}
	}
	t.Fatal("no leaf of the same size in 200 tries")
	return testPair{}
}

// plainFiles are a certificate and key file written in place.
type plainFiles struct{ certFile, keyFile string }

func newPlainFiles(t *testing.T, p testPair) plainFiles {
	dir := t.TempDir()
	f := plainFiles{certFile: filepath.Join(dir, "tls.crt"), keyFile: filepath.Join(dir, "tls.key")}
	f.write(t, p)
	return f
}

// write rewrites both files in place, certificate first, as a naive
// writer does: for a moment the new certificate sits beside the old key.
func (f plainFiles) write(t *testing.T, p testPair) {
	t.Helper()
	if err := os.WriteFile(f.certFile, p.certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.keyFile, p.keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
}

// secretVolume lays its files out the way the kubelet projects a Secret:
// tls.crt -> ..data/tls.crt, ..data -> ..<generation>/, and an update
// writes a new generation directory and renames a fresh symlink over
// ..data, so both files change in one step.
type secretVolume struct {
	dir        string
	generation int
}

func newSecretVolume(t *testing.T, p testPair) *secretVolume {
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

func (v *secretVolume) certFile() string { return filepath.Join(v.dir, "tls.crt") }
func (v *secretVolume) keyFile() string  { return filepath.Join(v.dir, "tls.key") }

func (v *secretVolume) update(t *testing.T, p testPair) {
	t.Helper()
	v.generation++
	gen := fmt.Sprintf("..gen_%d", v.generation)
	if err := os.Mkdir(filepath.Join(v.dir, gen), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.dir, gen, "tls.crt"), p.certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.dir, gen, "tls.key"), p.keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(gen, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if v.generation > 1 {
		// The kubelet removes the old generation once ..data has moved.
		if err := os.RemoveAll(filepath.Join(v.dir, fmt.Sprintf("..gen_%d", v.generation-1))); err != nil {
			t.Fatal(err)
		}
	}
}

func servedSerial(t *testing.T, cert *tls.Certificate) int64 {
	t.Helper()
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.SerialNumber.Int64()
}
