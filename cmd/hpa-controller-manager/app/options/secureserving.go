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

package options

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	apiserveroptions "k8s.io/apiserver/pkg/server/options"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// DefaultSecurePort is kube-controller-manager's --secure-port, so that a
// scrape configuration or a probe written for it fits this binary too.
const DefaultSecurePort = 10257

// servingPairName names the self-signed certificate's files in --cert-dir.
const servingPairName = "hpa-controller-manager"

// SecureServingOptions serve /healthz, /readyz, /livez, /metrics and
// /debug/pprof over HTTPS, with every request but the probes'
// authenticated and authorized by the API server, as kube-controller-
// manager serves them, with k8s.io/apiserver's options and their flags.
type SecureServingOptions struct {
	// Serving is --bind-address, --secure-port (0 disables the port),
	// --cert-dir, --tls-*, --http2-max-streams-per-connection and the
	// port sharing flags; the webhook listens on the same address with
	// the same TLS and HTTP/2 settings.
	Serving *apiserveroptions.SecureServingOptions
	// Authentication and Authorization are k8s.io/apiserver's delegating
	// options, with their flags: the same names and meanings as
	// kube-controller-manager's, so that an operator configures both alike.
	Authentication *apiserveroptions.DelegatingAuthenticationOptions
	Authorization  *apiserveroptions.DelegatingAuthorizationOptions
}

// newSecureServingOptions returns kube-controller-manager's defaults:
// port 10257, a self-signed certificate kept in memory when no
// --tls-cert-file is given (no --cert-dir), a missing delegation kubeconfig
// that is no error (Config falls back to --kubeconfig, then to the
// in-cluster configuration), and probe paths that need no authorization,
// so that the kubelet probes without a token.
func newSecureServingOptions() SecureServingOptions {
	serving := apiserveroptions.NewSecureServingOptions()
	serving.BindPort = DefaultSecurePort
	serving.ServerCert.CertDirectory = ""
	serving.ServerCert.PairName = servingPairName
	authn := apiserveroptions.NewDelegatingAuthenticationOptions()
	authn.RemoteKubeConfigFileOptional = true
	authz := apiserveroptions.NewDelegatingAuthorizationOptions()
	authz.RemoteKubeConfigFileOptional = true
	authz.AlwaysAllowPaths = []string{"/healthz", "/readyz", "/livez"}
	return SecureServingOptions{Serving: serving, Authentication: authn, Authorization: authz}
}

func (o *SecureServingOptions) addFlags(fss *cliflag.NamedFlagSets) {
	secure := fss.FlagSet("secure serving")
	o.Serving.AddFlags(secure)
	// Where this binary's flags do more than kube-controller-manager's,
	// its help says so after theirs.
	appendUsage(secure, "bind-address", "Also the address of --port and --webhook-port.")
	appendUsage(secure, "cert-dir", "Empty (the default): the self-signed certificate is made in memory at every start and nothing is written, which suits a read-only root file system. Set: the certificate and key are written there as "+servingPairName+".crt and "+servingPairName+".key (the directory must be writable), and kept for the next start.")
	// apiserver's help says the self-signed certificate is saved to
	// --cert-dir, which is only so when one is given.
	setUsage(secure, "tls-cert-file", "File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for localhost (see --cert-dir). Read again when it changes (as a Secret volume's renewal replaces it), and also the admission webhook's certificate unless --webhook-tls-cert-file is set.")
	appendUsage(secure, "tls-min-version", "Applies to the admission webhook too.")
	appendUsage(secure, "tls-cipher-suites", "Applies to the admission webhook too.")
	o.Authentication.AddFlags(fss.FlagSet("authentication"))
	o.Authorization.AddFlags(fss.FlagSet("authorization"))
	// apiserver's help says an empty kubeconfig means no delegation; here
	// it means the controller's own connection to the API server.
	setUsage(fss.FlagSet("authentication"), "authentication-kubeconfig",
		"kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io and to read the ConfigMap kube-system/extension-apiserver-authentication; defaults to --kubeconfig, or the in-cluster configuration.")
	setUsage(fss.FlagSet("authorization"), "authorization-kubeconfig",
		"kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io; defaults to --kubeconfig, or the in-cluster configuration.")
}

func setUsage(fs *pflag.FlagSet, name, usage string) {
	if f := fs.Lookup(name); f != nil {
		f.Usage = usage
	}
}

func appendUsage(fs *pflag.FlagSet, name, more string) {
	if f := fs.Lookup(name); f != nil {
		f.Usage = strings.TrimSpace(f.Usage)
		if !strings.HasSuffix(f.Usage, ".") {
			f.Usage += "."
		}
		f.Usage += " " + more
	}
}

func (o *SecureServingOptions) validate() []error {
	errs := o.Serving.Validate()
	cert := o.Serving.ServerCert.CertKey
	if (cert.CertFile == "") != (cert.KeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file must be given together"))
	}
	// apiserver parses these only when it applies them, which Run does;
	// a bad value is said here, with the flag's name, before anything
	// starts.
	if _, err := cliflag.TLSVersion(o.Serving.MinTLSVersion); err != nil {
		errs = append(errs, fmt.Errorf("--tls-min-version: %w", err))
	}
	if _, err := cliflag.TLSCipherSuites(o.Serving.CipherSuites); err != nil {
		errs = append(errs, fmt.Errorf("--tls-cipher-suites: %w", err))
	}
	if _, err := cliflag.TLSCurvePreferences(o.Serving.CurvePreferences); err != nil {
		errs = append(errs, fmt.Errorf("--tls-curve-preferences: %w", err))
	}
	errs = append(errs, o.Authentication.Validate()...)
	errs = append(errs, o.Authorization.Validate()...)
	return errs
}

// address is host:port of port on --bind-address.
func (o *SecureServingOptions) address(port int32) string {
	return net.JoinHostPort(o.Serving.BindAddress.String(), strconv.Itoa(int(port)))
}

// config is the secure port's configuration; kubeconfig is the
// controller's --kubeconfig, which the delegation uses unless told
// otherwise. The options are copies, so that Config leaves o as it was:
// Run applies them, making the self-signed certificate and binding the
// port.
func (o *SecureServingOptions) config(kubeconfig string) config.SecureServing {
	if o.Serving.BindPort == 0 {
		return config.SecureServing{}
	}
	serving, authn, authz := *o.Serving, *o.Authentication, *o.Authorization
	if authn.RemoteKubeConfigFile == "" {
		authn.RemoteKubeConfigFile = kubeconfig
	}
	if authz.RemoteKubeConfigFile == "" {
		authz.RemoteKubeConfigFile = kubeconfig
	}
	return config.SecureServing{Serving: &serving, Authentication: &authn, Authorization: &authz}
}

// webhookServing is the secure port's serving options moved to port, with
// none of its certificates: the webhook listens on --bind-address with the
// same TLS, HTTP/2 and port sharing settings, and serves a certificate of
// its own.
func (o *SecureServingOptions) webhookServing(port int32) *apiserveroptions.SecureServingOptions {
	serving := *o.Serving
	serving.BindPort = int(port)
	serving.Listener = nil
	serving.ServerCert = apiserveroptions.GeneratableKeyCert{}
	serving.SNICertKeys = nil
	return &serving
}
