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

package localcluster

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"

	"github.com/kube-hpa/kube-hpa/test/testca"
)

// Identities that the flags and the certificates must agree on.
const (
	adminUser            = "kube-hpa-admin"
	frontProxyClientName = "front-proxy-client"
	// serviceIP is the first address of serviceCIDR, which the apiserver
	// gives to the kubernetes Service; its serving certificate names it.
	serviceCIDR = "10.0.0.0/24"
	serviceIP   = "10.0.0.1"
)

// credentials are the secrets of one run that stay in memory as well.
type credentials struct {
	ca         *testca.CA
	adminToken string
}

// generatePKI writes every certificate, key and the token file that the
// components read, and returns the CA (to issue certificates for tests'
// servers later) and the admin token.
func generatePKI(l layout) (credentials, error) {
	ca, err := testca.New("kube-hpa-localcluster-ca")
	if err != nil {
		return credentials{}, err
	}
	serving, err := ca.IssueServing(testca.Serving{
		CommonName: "kube-apiserver",
		Hosts: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local", "127.0.0.1", "::1", serviceIP},
	})
	if err != nil {
		return credentials{}, err
	}
	// The aggregator proves itself to extension servers (a metrics
	// adapter) with a client certificate of a CA that only it uses.
	frontProxyCA, err := testca.New("kube-hpa-localcluster-front-proxy-ca")
	if err != nil {
		return credentials{}, err
	}
	frontProxyClient, err := frontProxyCA.IssueClient(testca.Client{User: frontProxyClientName})
	if err != nil {
		return credentials{}, err
	}
	// kwok serves the fake nodes' kubelet endpoints on loopback, and
	// metrics-server, which checks that certificate as it checks a
	// kubelet's, is reached by the aggregator under its Service's name.
	kwokServing, err := ca.IssueServing(testca.Serving{CommonName: "kwok", Hosts: []string{"127.0.0.1"}})
	if err != nil {
		return credentials{}, err
	}
	metricsServing, err := ca.IssueServing(testca.Serving{
		Hosts: []string{metricsServerServiceHost(), "localhost", "127.0.0.1"},
	})
	if err != nil {
		return credentials{}, err
	}
	saKey, saPub, err := newServiceAccountKey()
	if err != nil {
		return credentials{}, err
	}
	token, err := randomToken()
	if err != nil {
		return credentials{}, err
	}
	// A static token in system:masters is the simplest identity that every
	// client (components, kubectl, tests) can share.
	tokens := fmt.Sprintf("%s,%s,%s-uid,system:masters\n", token, adminUser, adminUser)
	err = writeFiles(map[string][]byte{
		l.caCert:                  ca.PEM(),
		l.caKey:                   ca.KeyPEM(),
		l.apiServerCert:           serving.CertPEM,
		l.apiServerKey:            serving.KeyPEM,
		l.frontProxyCACert:        frontProxyCA.PEM(),
		l.frontProxyClientCert:    frontProxyClient.CertPEM,
		l.frontProxyClientKey:     frontProxyClient.KeyPEM,
		l.kwokCert:                kwokServing.CertPEM,
		l.kwokKey:                 kwokServing.KeyPEM,
		l.metricsServerCert:       metricsServing.CertPEM,
		l.metricsServerKey:        metricsServing.KeyPEM,
		l.serviceAccountKey:       saKey,
		l.serviceAccountPublicKey: saPub,
		l.tokenFile:               []byte(tokens),
	})
	if err != nil {
		return credentials{}, err
	}
	return credentials{ca: ca, adminToken: token}, nil
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// newServiceAccountKey returns an RSA private key and its public key in PEM.
// RSA because every Kubernetes version accepts it for signing tokens.
func newServiceAccountKey() (privatePEM, publicPEM []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)), pemBlock("PUBLIC KEY", pubDER), nil
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// writeFiles writes each path's content, readable by the owner only since
// some of them are private keys.
func writeFiles(files map[string][]byte) error {
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
