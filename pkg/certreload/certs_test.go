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

package certreload

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/kube-hpa/kube-hpa/pkg/certreload/certreloadtest"
)

// issueSameSize issues a leaf whose files are exactly as long as like's,
// the case where only the contents tell a rewrite apart.
func issueSameSize(t *testing.T, ca *certreloadtest.CA, serial int64, like certreloadtest.Pair) certreloadtest.Pair {
	t.Helper()
	for range 200 {
		p := ca.Issue(t, serial)
		if len(p.CertPEM) == len(like.CertPEM) && len(p.KeyPEM) == len(like.KeyPEM) {
			return p
		}
	}
	t.Fatal("no leaf of the same size in 200 tries")
	return certreloadtest.Pair{}
}

// plainFiles are a certificate and key file written in place.
type plainFiles struct{ certFile, keyFile string }

func newPlainFiles(t *testing.T, p certreloadtest.Pair) plainFiles {
	dir := t.TempDir()
	f := plainFiles{certFile: filepath.Join(dir, "tls.crt"), keyFile: filepath.Join(dir, "tls.key")}
	f.write(t, p)
	return f
}

// write rewrites both files in place, certificate first, as a naive
// writer does: for a moment the new certificate sits beside the old key.
func (f plainFiles) write(t *testing.T, p certreloadtest.Pair) {
	t.Helper()
	if err := os.WriteFile(f.certFile, p.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.keyFile, p.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
}

// secretVolume is certreloadtest's, here so that it can be a pairFiles.
type secretVolume struct{ *certreloadtest.SecretVolume }

func newSecretVolume(t *testing.T, p certreloadtest.Pair) *secretVolume {
	t.Helper()
	return &secretVolume{certreloadtest.NewSecretVolume(t, p)}
}

func servedSerial(t *testing.T, cert *tls.Certificate) int64 {
	t.Helper()
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.SerialNumber.Int64()
}
