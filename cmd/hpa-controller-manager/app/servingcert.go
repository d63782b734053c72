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
	"crypto/tls"
	"fmt"
	"net"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/pkg/certreload"
)

// getCertificateFunc is what a tls.Config's GetCertificate holds.
type getCertificateFunc func(*tls.ClientHelloInfo) (*tls.Certificate, error)

// servingCertificate is the secure port's certificate: the pair of
// certFile and keyFile, followed through renewals as the webhook follows
// it, or, with no files, a self-signed certificate made now and kept in
// memory, as kube-controller-manager does without --tls-cert-file.
// Clients of a self-signed port (the kubelet's probes, a Prometheus
// told to skip verification) authenticate themselves with tokens, not by
// the server's name, so an unverifiable certificate costs them nothing.
func servingCertificate(logger klog.Logger, certFile, keyFile string) (getCertificateFunc, error) {
	if certFile != "" {
		pair, err := certreload.New(logger, certFile, keyFile)
		if err != nil {
			return nil, err
		}
		return pair.GetCertificate, nil
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		return nil, fmt.Errorf("making a self-signed serving certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("loading the self-signed serving certificate: %w", err)
	}
	logger.Info("Serving a self-signed certificate on the secure port (no --tls-cert-file)")
	return func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }, nil
}
