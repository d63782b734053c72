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

package testca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// Names of the files in a kubernetes.io/tls Secret, which Save and Load use
// as well.
const (
	TLSCertKey = "tls.crt"
	TLSKeyKey  = "tls.key"
	CACertKey  = "ca.crt"
)

// validity covers any test run or demo; the certificates die with their
// directory anyway.
const validity = 7 * 24 * time.Hour

// backdate tolerates a clock a little behind.
const backdate = time.Hour

// CA is a self-signed certificate authority, with an ECDSA P-256 key.
type CA struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
	keyPEM  []byte
}

// New makes a self-signed CA named commonName.
func New(commonName string) (*CA, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("self-signing %s: %w", commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, certPEM: encodeCert(der), keyPEM: keyPEM}, nil
}

// Load reads a CA saved with Save into dir.
func Load(dir string) (*CA, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, TLSCertKey))
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, TLSKeyKey))
	if err != nil {
		return nil, err
	}
	cert, err := ParseCertificate(certPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM key", dir)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: a %T cannot sign", dir, key)
	}
	return &CA{cert: cert, key: signer, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// Save writes the CA's certificate and key into dir as tls.crt and tls.key
// (the Secret of a cert-manager CA Issuer), readable by the owner only.
func (ca *CA) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, TLSCertKey), ca.certPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, TLSKeyKey), ca.keyPEM, 0o600)
}

// PEM is the CA's certificate: what a caBundle or a --client-ca-file holds.
func (ca *CA) PEM() []byte { return append([]byte(nil), ca.certPEM...) }

// KeyPEM is the CA's private key, PKCS #8 in PEM.
func (ca *CA) KeyPEM() []byte { return append([]byte(nil), ca.keyPEM...) }

// Pool trusts the CA alone, for a client's RootCAs or a server's ClientCAs.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// ParseCertificate reads the first certificate of PEM data.
func ParseCertificate(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

func randomSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func encodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
