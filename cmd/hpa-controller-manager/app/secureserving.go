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
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"

	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// secureServer is the HTTPS server of /healthz, /readyz, /livez and
// /metrics, and what keeps its view of the cluster's client CAs current.
type secureServer struct {
	srv *http.Server
	// clientCA follows the CAs that authenticate client certificates and
	// front proxies (the cluster's extension-apiserver-authentication
	// ConfigMap, --client-ca-file, --requestheader-client-ca-file); nil
	// when none is configured.
	clientCA dynamiccertificates.CAContentProvider
}

// newSecureServer builds the secure server of handler. The delegated
// authentication and authorization are applied here, at start, as
// kube-controller-manager applies them: a replica that cannot read the
// cluster's authentication configuration, or has no certificate to serve,
// fails now rather than answer every scrape with an error.
func newSecureServer(ctx context.Context, cfg config.SecureServing, handler http.Handler) (*secureServer, error) {
	logger := klog.FromContext(ctx)
	getCertificate, err := servingCertificate(logger, cfg.CertFile, cfg.KeyFile)
	if err != nil {
		return nil, err
	}
	// The serving info only collects the client CAs that the
	// authentication options find; this server does its own TLS.
	var serving server.SecureServingInfo
	var authn server.AuthenticationInfo
	if err := cfg.Authentication.ApplyTo(&authn, &serving, nil); err != nil {
		return nil, fmt.Errorf("delegated authentication for the secure port: %w", err)
	}
	var authz server.AuthorizationInfo
	if err := cfg.Authorization.ApplyTo(&authz); err != nil {
		return nil, fmt.Errorf("delegated authorization for the secure port: %w", err)
	}
	srv := newHealthServer(cfg.Address, withDelegatedAuth(handler, authn, authz))
	srv.TLSConfig = &tls.Config{
		MinVersion:     cfg.TLS.MinVersion,
		CipherSuites:   cfg.TLS.CipherSuites,
		GetCertificate: getCertificate,
		// A client certificate is asked for but not required, so that a
		// token or no credentials at all still reach authentication: the
		// authenticator verifies a certificate against the client CAs,
		// which change without a restart.
		ClientAuth: tls.RequestClientCert,
	}
	return &secureServer{srv: srv, clientCA: serving.ClientCA}, nil
}

// run serves on the server's address until ctx ends.
func (s *secureServer) run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.srv.Addr)
	if err != nil {
		return fmt.Errorf("serving on %s: %w", s.srv.Addr, err)
	}
	return s.runOn(ctx, ln)
}

// runOn follows the client CAs and serves on ln until ctx ends.
func (s *secureServer) runOn(ctx context.Context, ln net.Listener) error {
	if runner, ok := s.clientCA.(dynamiccertificates.ControllerRunner); ok {
		// Loaded once before serving, so that the first client
		// certificate already meets its CA; a failure here only delays
		// certificate authentication until the controller's next sync.
		if err := runner.RunOnce(ctx); err != nil {
			klog.FromContext(ctx).Error(err, "Loading the client CAs of the secure port")
		}
		go runner.Run(ctx, 1)
	}
	return serveOn(ctx, s.srv, ln)
}
