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
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"testing"
)

func TestIssuedCertificatesVerifyAgainstTheirAuthority(t *testing.T) {
	ca, err := newAuthority("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.certPEM) {
		t.Fatal("the CA PEM does not parse")
	}
	tests := []struct {
		name  string
		req   certRequest
		opts  x509.VerifyOptions
		usage x509.ExtKeyUsage
	}{
		{
			name:  "serving certificate for a DNS name",
			req:   certRequest{commonName: "server", dnsNames: []string{"apiservice-x.kube-system.svc"}},
			opts:  x509.VerifyOptions{DNSName: "apiservice-x.kube-system.svc"},
			usage: x509.ExtKeyUsageServerAuth,
		},
		{
			name:  "client certificate with groups",
			req:   certRequest{commonName: "front-proxy-client", organizations: []string{"g"}, client: true},
			usage: x509.ExtKeyUsageClientAuth,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pair, err := ca.issue(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tls.X509KeyPair(pair.certPEM, pair.keyPEM); err != nil {
				t.Fatalf("certificate and key do not match: %v", err)
			}
			block, _ := pem.Decode(pair.certPEM)
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			opts := tc.opts
			opts.Roots = pool
			opts.KeyUsages = []x509.ExtKeyUsage{tc.usage}
			if _, err := cert.Verify(opts); err != nil {
				t.Errorf("does not verify: %v", err)
			}
		})
	}
}
