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
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/pflag"
	apiserveroptions "k8s.io/apiserver/pkg/server/options"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// DefaultSecurePort is kube-controller-manager's --secure-port, so that a
// scrape configuration or a probe written for it fits this binary too.
const DefaultSecurePort = 10257

// SecureServingOptions serve /healthz, /readyz, /livez and /metrics over
// HTTPS, with every request but the probes' authenticated and authorized
// by the API server, as kube-controller-manager serves them.
type SecureServingOptions struct {
	// Port is --secure-port; 0 disables the secure server.
	Port int32
	// Authentication and Authorization are k8s.io/apiserver's delegating
	// options, with their flags: the same names and meanings as
	// kube-controller-manager's, so that an operator configures both alike.
	Authentication *apiserveroptions.DelegatingAuthenticationOptions
	Authorization  *apiserveroptions.DelegatingAuthorizationOptions
}

// newSecureServingOptions returns kube-controller-manager's defaults:
// a missing delegation kubeconfig is no error (Config falls back to
// --kubeconfig, then to the in-cluster configuration), and the probes'
// paths need no authorization, so that the kubelet probes without a token.
func newSecureServingOptions() SecureServingOptions {
	authn := apiserveroptions.NewDelegatingAuthenticationOptions()
	authn.RemoteKubeConfigFileOptional = true
	authz := apiserveroptions.NewDelegatingAuthorizationOptions()
	authz.RemoteKubeConfigFileOptional = true
	authz.AlwaysAllowPaths = []string{"/healthz", "/readyz", "/livez"}
	return SecureServingOptions{Port: DefaultSecurePort, Authentication: authn, Authorization: authz}
}

func (o *SecureServingOptions) addFlags(fss *cliflag.NamedFlagSets) {
	secure := fss.FlagSet("secure serving")
	secure.Int32Var(&o.Port, "secure-port", o.Port, "The port on which to serve /healthz, /readyz, /livez and /metrics over HTTPS, with authentication and authorization delegated to the API server (/healthz, /readyz and /livez need none, see --authorization-always-allow-paths); 0 disables it. The certificate is --tls-cert-file's, read again when its files change, or else a self-signed one made at start.")
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

func (o *SecureServingOptions) validate() []error {
	var errs []error
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port must be between 0 and 65535, got %d", o.Port))
	}
	errs = append(errs, o.Authentication.Validate()...)
	errs = append(errs, o.Authorization.Validate()...)
	return errs
}

// config is the secure server's configuration; kubeconfig is the
// controller's --kubeconfig, which the delegation uses unless told
// otherwise. The delegating options are copies, so that Config leaves o
// as it was.
func (o *SecureServingOptions) config(bindAddress, kubeconfig, certFile, keyFile string) config.SecureServing {
	if o.Port == 0 {
		return config.SecureServing{}
	}
	authn, authz := *o.Authentication, *o.Authorization
	if authn.RemoteKubeConfigFile == "" {
		authn.RemoteKubeConfigFile = kubeconfig
	}
	if authz.RemoteKubeConfigFile == "" {
		authz.RemoteKubeConfigFile = kubeconfig
	}
	return config.SecureServing{
		Address:        net.JoinHostPort(bindAddress, strconv.Itoa(int(o.Port))),
		CertFile:       certFile,
		KeyFile:        keyFile,
		Authentication: &authn,
		Authorization:  &authz,
	}
}
