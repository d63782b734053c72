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
	"fmt"
	"net"
	"net/http"

	"k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"
	netutils "k8s.io/utils/net"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// newSecureServer binds the secure port of /healthz, /readyz, /livez,
// /metrics and /debug/pprof (handler), as kube-controller-manager builds
// its own: apiserver's serving options make a self-signed certificate when
// no --tls-cert-file is given, then open the listener and load the
// certificates (--tls-cert-file, --tls-sni-cert-key); the delegated
// authentication and authorization are applied here, at start, and add the
// client CAs to the serving info. A replica that cannot read the
// cluster's authentication configuration, or has no certificate to serve,
// fails now rather than answer every scrape with an error.
func newSecureServer(logger klog.Logger, cfg config.SecureServing, handler http.Handler) (*httpsPort, error) {
	// A copy: applying the options fills in the certificate and the
	// listener.
	opts := *cfg.Serving
	// With no --cert-dir, kube-controller-manager's default, the
	// certificate is made in memory, for the names a local client dials.
	if err := opts.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
		return nil, fmt.Errorf("making the secure port's self-signed certificate: %w", err)
	}
	var serving *server.SecureServingInfo
	if err := opts.ApplyTo(&serving); err != nil {
		return nil, fmt.Errorf("serving the secure port: %w", err)
	}
	logReloads(logger, "secure", serving.Cert)
	port := &httpsPort{name: "the secure port", serving: serving}
	var authn server.AuthenticationInfo
	if err := cfg.Authentication.ApplyTo(&authn, serving, nil); err != nil {
		port.close()
		return nil, fmt.Errorf("delegated authentication for the secure port: %w", err)
	}
	var authz server.AuthorizationInfo
	if err := cfg.Authorization.ApplyTo(&authz); err != nil {
		port.close()
		return nil, fmt.Errorf("delegated authorization for the secure port: %w", err)
	}
	port.handler = withDelegatedAuth(handler, authn, authz)
	return port, nil
}
