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
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
)

// logReloads logs each certificate that the serving files of port's
// provider load after the first, with its serial and expiry: apiserver's
// file controller says so only at -v=2 and without the serial, and an
// operator who renewed a certificate wants to see which one each replica
// serves. A provider that follows no files (a self-signed certificate
// made in memory) has nothing to log.
func logReloads(logger klog.Logger, port string, provider dynamiccertificates.CertKeyContentProvider) {
	if n, ok := provider.(dynamiccertificates.Notifier); ok {
		n.AddListener(reloadLog{logger: logger, port: port, provider: provider})
	}
}

// reloadLog is the listener logReloads adds: its provider calls Enqueue
// once its content has changed.
type reloadLog struct {
	logger   klog.Logger
	port     string
	provider dynamiccertificates.CertKeyContentProvider
}

func (r reloadLog) Enqueue() {
	certPEM, _ := r.provider.CurrentCertKeyContent()
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		r.logger.Error(err, "Reloaded the serving certificate, which does not parse", "port", r.port)
		return
	}
	// The first certificate is the server's; the others are its chain.
	cert := certs[0]
	r.logger.Info("Reloaded the serving certificate", "port", r.port, "serial", cert.SerialNumber.String(),
		"notAfter", cert.NotAfter, "dnsNames", cert.DNSNames)
}
