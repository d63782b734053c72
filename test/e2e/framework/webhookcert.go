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
	"crypto/x509"
	"fmt"
	"path/filepath"

	"github.com/kube-hpa/kube-hpa/test/testca"
)

// WebhookTLS is where the local environment keeps the webhook's serving
// certificate, laid out as a cluster with cert-manager has it: a CA
// Issuer's Secret, and the serving Certificate's Secret (tls.crt, tls.key,
// ca.crt) projected into the replicas as the kubelet projects a Secret
// volume, which a renewal replaces in one step (testca.WriteSecretVolume). The
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

// CertFile is the replicas' --tls-cert-file.
func (w WebhookTLS) CertFile() string { return filepath.Join(w.SecretDir, testca.TLSCertKey) }

// KeyFile is the replicas' --tls-private-key-file.
func (w WebhookTLS) KeyFile() string { return filepath.Join(w.SecretDir, testca.TLSKeyKey) }

// issueWebhookCert signs a serving certificate for w.Hosts with ca and
// projects it with ca.crt into w.SecretDir, as cert-manager writes the
// Certificate's Secret and the kubelet projects it.
func issueWebhookCert(w WebhookTLS, ca *testca.CA) (*x509.Certificate, error) {
	pair, err := ca.IssueServing(testca.Serving{CommonName: "hpa-controller-manager-webhook", Hosts: w.Hosts})
	if err != nil {
		return nil, err
	}
	files := pair.SecretData()
	files[testca.CACertKey] = ca.PEM()
	err = testca.WriteSecretVolume(w.SecretDir, files)
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
	ca, err := testca.New("kube-hpa-e2e-webhook-ca")
	if err != nil {
		return w, err
	}
	if err := ca.Save(w.IssuerDir); err != nil {
		return w, err
	}
	_, err = issueWebhookCert(w, ca)
	return w, err
}
