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
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Pair is an issued certificate and its private key, in the PEM a
// kubernetes.io/tls Secret holds.
type Pair struct {
	Leaf            *x509.Certificate
	CertPEM, KeyPEM []byte
}

// SecretData is the pair as the data of a kubernetes.io/tls Secret, for
// WriteSecretVolume.
func (p Pair) SecretData() map[string][]byte {
	return map[string][]byte{TLSCertKey: p.CertPEM, TLSKeyKey: p.KeyPEM}
}

// TLSCertificate is the pair for a tls.Config.
func (p Pair) TLSCertificate() (tls.Certificate, error) {
	return tls.X509KeyPair(p.CertPEM, p.KeyPEM)
}

// Serving describes a serving certificate.
type Serving struct {
	// CommonName defaults to the first host.
	CommonName string
	// Hosts are the DNS names and IP addresses the certificate is valid
	// for.
	Hosts []string
	// Serial is the certificate's serial number; zero picks a random one.
	Serial int64
}

// Client describes a client certificate as Kubernetes reads it: the common
// name is the user, each organization a group.
type Client struct {
	User   string
	Groups []string
	// Serial is the certificate's serial number; zero picks a random one.
	Serial int64
}

// IssueServing signs a serving certificate with a new key, as cert-manager
// does on a renewal with rotationPolicy: Always.
func (ca *CA) IssueServing(s Serving) (Pair, error) {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: s.CommonName},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if tmpl.Subject.CommonName == "" && len(s.Hosts) > 0 {
		tmpl.Subject.CommonName = s.Hosts[0]
	}
	for _, h := range s.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return ca.issue(tmpl, s.Serial)
}

// IssueClient signs a client certificate with a new key.
func (ca *CA) IssueClient(c Client) (Pair, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: c.User, Organization: c.Groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, c.Serial)
}

// issue completes tmpl with a serial, the validity and the key usage, and
// signs it for a new key.
func (ca *CA) issue(tmpl *x509.Certificate, serial int64) (Pair, error) {
	key, err := newKey()
	if err != nil {
		return Pair{}, err
	}
	tmpl.SerialNumber = big.NewInt(serial)
	if serial == 0 {
		if tmpl.SerialNumber, err = randomSerial(); err != nil {
			return Pair{}, err
		}
	}
	now := time.Now()
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-backdate), now.Add(validity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return Pair{}, fmt.Errorf("issuing %s: %w", tmpl.Subject.CommonName, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return Pair{}, err
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return Pair{}, err
	}
	return Pair{Leaf: leaf, CertPEM: encodeCert(der), KeyPEM: keyPEM}, nil
}
