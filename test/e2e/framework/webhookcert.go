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

package framework

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
	"net"
	"os"
	"path/filepath"
	"time"
)

// WebhookTLS is where the local environment keeps the webhook's serving
// certificate, laid out as a cluster with cert-manager has it: a CA
// Issuer's Secret, and the serving Certificate's Secret (tls.crt, tls.key,
// ca.crt) projected into the replicas as the kubelet projects a Secret
// volume, which a renewal replaces in one step (WriteSecretVolume). The
// replicas read --tls-cert-file and --tls-private-key-file from SecretDir,
// for their webhook and their secure port alike.
type WebhookTLS struct {
	// SecretDir is the replicas' Secret volume.
	SecretDir string `json:"secretDir"`
	// IssuerDir holds the CA that signs the serving certificate, as
	// tls.crt and tls.key (the Secret of a cert-manager CA Issuer).
	IssuerDir string `json:"issuerDir"`
	// Hosts are the serving certificate's names: the address in the
	// webhook configuration's URL.
	Hosts []string `json:"hosts"`
	// Configuration is the ValidatingWebhookConfiguration whose caBundle
	// holds the CA.
	Configuration string `json:"configuration"`
}

// Names of the files in a kubernetes.io/tls Secret.
const (
	tlsCertKey = "tls.crt"
	tlsKeyKey  = "tls.key"
	caCertKey  = "ca.crt"
)

// CertFile is the replicas' --tls-cert-file.
func (w WebhookTLS) CertFile() string { return filepath.Join(w.SecretDir, tlsCertKey) }

// KeyFile is the replicas' --tls-private-key-file.
func (w WebhookTLS) KeyFile() string { return filepath.Join(w.SecretDir, tlsKeyKey) }

// webhookCertValidity covers any run; a renewal is not driven by expiry
// in the suite.
const webhookCertValidity = 7 * 24 * time.Hour

// CA signs serving certificates, as a cert-manager CA Issuer does.
type CA struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
}

// NewCA makes a self-signed CA.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := certSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(webhookCertValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
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
	return &CA{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// LoadCA reads a CA saved with Save.
func LoadCA(dir string) (*CA, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, tlsCertKey))
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, tlsKeyKey))
	if err != nil {
		return nil, err
	}
	cert, err := parseCertificatePEM(certPEM)
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
	return &CA{cert: cert, key: signer, certPEM: certPEM}, nil
}

// Save writes the CA's certificate and key into dir.
func (ca *CA) Save(dir string) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(ca.key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, tlsCertKey), ca.certPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, tlsKeyKey), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// PEM is the CA's certificate, what a caBundle holds.
func (ca *CA) PEM() []byte { return append([]byte(nil), ca.certPEM...) }

// Pool trusts the CA alone.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// ServingPair is a serving certificate and its key.
type ServingPair struct {
	Leaf            *x509.Certificate
	CertPEM, KeyPEM []byte
}

// Issue signs a serving certificate for hosts (IP addresses or DNS names)
// with a new key, as cert-manager does on a renewal with
// rotationPolicy: Always (its default since v1.18).
func (ca *CA) Issue(hosts ...string) (ServingPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ServingPair{}, err
	}
	serial, err := certSerial()
	if err != nil {
		return ServingPair{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "hpa-controller-manager-webhook"},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(webhookCertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return ServingPair{}, fmt.Errorf("issuing a serving certificate for %v: %w", hosts, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return ServingPair{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return ServingPair{}, err
	}
	return ServingPair{
		Leaf:    leaf,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func certSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func parseCertificatePEM(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

// Names of the kubelet's atomic writer (pkg/volume/util/atomic_writer.go).
const (
	secretVolumeData    = "..data"
	secretVolumeDataTmp = "..data_tmp"
)

// WriteSecretVolume projects files into dir the way the kubelet updates a
// Secret volume: every file goes into a new timestamped directory, a
// ..data_tmp symlink to it is renamed over ..data, so all files change in
// one step, and then the previous directory is removed. Each name in dir
// is a symlink into ..data, made on the first write.
func WriteSecretVolume(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	previous, err := os.Readlink(filepath.Join(dir, secretVolumeData))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	generation, err := os.MkdirTemp(dir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	if err != nil {
		return err
	}
	if err := os.Chmod(generation, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(generation, name), data, 0o600); err != nil {
			return err
		}
	}
	tmp := filepath.Join(dir, secretVolumeDataTmp)
	if err := os.Symlink(filepath.Base(generation), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, secretVolumeData)); err != nil {
		return err
	}
	for name := range files {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
			if err := os.Symlink(filepath.Join(secretVolumeData, name), link); err != nil {
				return err
			}
		}
	}
	if previous != "" {
		return os.RemoveAll(filepath.Join(dir, previous))
	}
	return nil
}

// issueWebhookCert signs a serving certificate for w.Hosts with ca and
// projects it with ca.crt into w.SecretDir, as cert-manager writes the
// Certificate's Secret and the kubelet projects it.
func issueWebhookCert(w WebhookTLS, ca *CA) (*x509.Certificate, error) {
	pair, err := ca.Issue(w.Hosts...)
	if err != nil {
		return nil, err
	}
	err = WriteSecretVolume(w.SecretDir, map[string][]byte{tlsCertKey: pair.CertPEM, tlsKeyKey: pair.KeyPEM, caCertKey: ca.PEM()})
	if err != nil {
		return nil, fmt.Errorf("projecting the webhook's certificate into %s: %w", w.SecretDir, err)
	}
	return pair.Leaf, nil
}

// setUpWebhookTLS makes the webhook's CA and serving certificate under
// dir; the webhook is served on hosts.
func setUpWebhookTLS(dir string, hosts ...string) (WebhookTLS, error) {
	w := WebhookTLS{
		SecretDir: filepath.Join(dir, "webhook-tls"),
		IssuerDir: filepath.Join(dir, "webhook-ca"),
		Hosts:     hosts,
	}
	ca, err := NewCA("kube-hpa-e2e-webhook-ca")
	if err != nil {
		return w, err
	}
	if err := ca.Save(w.IssuerDir); err != nil {
		return w, err
	}
	_, err = issueWebhookCert(w, ca)
	return w, err
}
