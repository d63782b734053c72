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
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
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
	ca         *authority
	adminToken string
}

// generatePKI writes every certificate, key and the token file that the
// components read, and returns the CA (to issue certificates for tests'
// servers later) and the admin token.
func generatePKI(l layout) (credentials, error) {
	ca, err := newAuthority("kube-hpa-localcluster-ca")
	if err != nil {
		return credentials{}, err
	}
	serving, err := ca.issue(certRequest{
		commonName: "kube-apiserver",
		dnsNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
		ips: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.ParseIP(serviceIP)},
	})
	if err != nil {
		return credentials{}, err
	}
	// The aggregator proves itself to extension servers (a metrics
	// adapter) with a client certificate of a CA that only it uses.
	frontProxyCA, err := newAuthority("kube-hpa-localcluster-front-proxy-ca")
	if err != nil {
		return credentials{}, err
	}
	frontProxyClient, err := frontProxyCA.issue(certRequest{commonName: frontProxyClientName, client: true})
	if err != nil {
		return credentials{}, err
	}
	// kwok serves the fake nodes' kubelet endpoints on loopback, and
	// metrics-server, which checks that certificate as it checks a
	// kubelet's, is reached by the aggregator under its Service's name.
	kwokServing, err := ca.issue(certRequest{commonName: "kwok", ips: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		return credentials{}, err
	}
	metricsServing, err := ca.issue(certRequest{
		commonName: metricsServerServiceHost(),
		dnsNames:   []string{metricsServerServiceHost(), "localhost"},
		ips:        []net.IP{net.IPv4(127, 0, 0, 1)},
	})
	if err != nil {
		return credentials{}, err
	}
	saKey, saPub, err := newServiceAccountKey()
	if err != nil {
		return credentials{}, err
	}
	caKeyDER, err := x509.MarshalPKCS8PrivateKey(ca.key)
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
		l.caCert:                  ca.certPEM,
		l.caKey:                   pemBlock("PRIVATE KEY", caKeyDER),
		l.apiServerCert:           serving.certPEM,
		l.apiServerKey:            serving.keyPEM,
		l.frontProxyCACert:        frontProxyCA.certPEM,
		l.frontProxyClientCert:    frontProxyClient.certPEM,
		l.frontProxyClientKey:     frontProxyClient.keyPEM,
		l.kwokCert:                kwokServing.certPEM,
		l.kwokKey:                 kwokServing.keyPEM,
		l.metricsServerCert:       metricsServing.certPEM,
		l.metricsServerKey:        metricsServing.keyPEM,
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
