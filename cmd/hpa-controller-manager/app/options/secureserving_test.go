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
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	apiserveroptions "k8s.io/apiserver/pkg/server/options"
)

// kubeconfigFile writes a kubeconfig that restConfig can load.
func kubeconfigFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSecureServingConfig(t *testing.T) {
	kubeconfig := kubeconfigFile(t)
	cases := []struct {
		name                 string
		args                 []string
		wantAddress          string // "": the secure port is off
		wantCertFile         string
		wantAuthnKubeconfig  string
		wantAuthzKubeconfig  string
		wantAlwaysAllowPaths int
	}{
		{name: "the secure port serves by default, delegating through --kubeconfig",
			args:        []string{"--kubeconfig=" + kubeconfig},
			wantAddress: "0.0.0.0:10257", wantAuthnKubeconfig: kubeconfig, wantAuthzKubeconfig: kubeconfig, wantAlwaysAllowPaths: 3},
		{name: "the delegation kubeconfigs given are kept",
			args:        []string{"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=/authn", "--authorization-kubeconfig=/authz"},
			wantAddress: "0.0.0.0:10257", wantAuthnKubeconfig: "/authn", wantAuthzKubeconfig: "/authz", wantAlwaysAllowPaths: 3},
		{name: "without --kubeconfig the delegation uses the in-cluster configuration",
			args:        []string{"--master=https://127.0.0.1:6443"},
			wantAddress: "0.0.0.0:10257", wantAlwaysAllowPaths: 3},
		{name: "the webhook's certificate is the secure port's",
			args:        []string{"--kubeconfig=" + kubeconfig, "--bind-address=127.0.0.1", "--secure-port=10999", "--tls-cert-file=/c", "--tls-private-key-file=/k"},
			wantAddress: "127.0.0.1:10999", wantCertFile: "/c", wantAuthnKubeconfig: kubeconfig, wantAuthzKubeconfig: kubeconfig, wantAlwaysAllowPaths: 3},
		{name: "the always-allowed paths can be changed",
			args:        []string{"--kubeconfig=" + kubeconfig, "--authorization-always-allow-paths=/healthz"},
			wantAddress: "0.0.0.0:10257", wantAuthnKubeconfig: kubeconfig, wantAuthzKubeconfig: kubeconfig, wantAlwaysAllowPaths: 1},
		{name: "secure port 0 turns the secure server off",
			args: []string{"--kubeconfig=" + kubeconfig, "--secure-port=0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOptions(t)
			if err := parse(t, o, tc.args...); err != nil {
				t.Fatal(err)
			}
			cfg, err := o.Config()
			if err != nil {
				t.Fatalf("Config: %v", err)
			}
			got := cfg.SecureServing
			if address := servingAddress(got.Serving); address != tc.wantAddress {
				t.Fatalf("secure address %q, want %q", address, tc.wantAddress)
			}
			if tc.wantAddress == "" {
				return
			}
			if certFile := got.Serving.ServerCert.CertKey.CertFile; certFile != tc.wantCertFile {
				t.Errorf("certificate file %q, want %q", certFile, tc.wantCertFile)
			}
			if got.Authentication.RemoteKubeConfigFile != tc.wantAuthnKubeconfig || got.Authorization.RemoteKubeConfigFile != tc.wantAuthzKubeconfig {
				t.Errorf("delegation kubeconfigs authn %q authz %q, want %q and %q", got.Authentication.RemoteKubeConfigFile,
					got.Authorization.RemoteKubeConfigFile, tc.wantAuthnKubeconfig, tc.wantAuthzKubeconfig)
			}
			if len(got.Authorization.AlwaysAllowPaths) != tc.wantAlwaysAllowPaths {
				t.Errorf("always-allowed paths %q, want %d of them", got.Authorization.AlwaysAllowPaths, tc.wantAlwaysAllowPaths)
			}
			// Config leaves the options as they were, so that it can be
			// called again.
			if o.SecureServing.Authentication.RemoteKubeConfigFile == kubeconfig && tc.wantAuthnKubeconfig == kubeconfig {
				t.Error("Config wrote the default kubeconfig into the options")
			}
		})
	}
}

// TestWebhookCertificate: the webhook serves its own certificate when
// given one, else --tls-cert-file's, and is not served without either;
// --secure-port keeps --tls-cert-file's.
func TestWebhookCertificate(t *testing.T) {
	cases := []struct {
		name                    string
		args                    []string
		wantWebhook, wantSecure string
	}{
		{name: "one certificate for both", args: []string{"--tls-cert-file=c", "--tls-private-key-file=k"}, wantWebhook: "c", wantSecure: "c"},
		{name: "the webhook's own certificate", args: []string{"--tls-cert-file=c", "--tls-private-key-file=k",
			"--webhook-tls-cert-file=w", "--webhook-tls-private-key-file=wk"}, wantWebhook: "w", wantSecure: "c"},
		{name: "the webhook's alone: the secure port's is self-signed", args: []string{"--webhook-tls-cert-file=w", "--webhook-tls-private-key-file=wk"},
			wantWebhook: "w", wantSecure: ""},
		{name: "no certificate: no webhook", args: nil, wantWebhook: "", wantSecure: ""},
		{name: "secure port 0 leaves the webhook served", args: []string{"--secure-port=0", "--tls-cert-file=c", "--tls-private-key-file=k"},
			wantWebhook: "c", wantSecure: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOptions(t)
			if err := parse(t, o, append([]string{"--master=https://127.0.0.1:6443"}, tc.args...)...); err != nil {
				t.Fatal(err)
			}
			cfg, err := o.Config()
			if err != nil {
				t.Fatalf("Config: %v", err)
			}
			var secure string
			if cfg.SecureServing.Serving != nil {
				secure = cfg.SecureServing.Serving.ServerCert.CertKey.CertFile
			}
			if cfg.Webhook.CertFile != tc.wantWebhook || secure != tc.wantSecure {
				t.Errorf("webhook certificate %q, secure port's %q; want %q and %q", cfg.Webhook.CertFile, secure, tc.wantWebhook, tc.wantSecure)
			}
			if (cfg.Webhook.Serving != nil) != (tc.wantWebhook != "") {
				t.Errorf("webhook serving %+v with certificate %q", cfg.Webhook.Serving, tc.wantWebhook)
			}
		})
	}
}

// TestServingSettingsReachBothServers: the TLS, HTTP/2 and port sharing
// flags apply to the secure port and the webhook alike, on --bind-address;
// the webhook has its own port and none of the secure port's certificates.
func TestServingSettingsReachBothServers(t *testing.T) {
	args := []string{"--master=https://127.0.0.1:6443", "--bind-address=127.0.0.2", "--tls-cert-file=c", "--tls-private-key-file=k",
		"--tls-min-version=VersionTLS13", "--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "--tls-curve-preferences=29",
		"--http2-max-streams-per-connection=50", "--disable-http2-serving", "--permit-port-sharing", "--permit-address-sharing",
		"--tls-sni-cert-key=sni.crt,sni.key", "--cert-dir=/certs"}
	o := newTestOptions(t)
	if err := parse(t, o, args...); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatalf("Config: %v", err)
	}
	secure, webhook := cfg.SecureServing.Serving, cfg.Webhook.Serving
	for where, got := range map[string]*apiserveroptions.SecureServingOptions{"secure port": secure, "webhook": webhook} {
		if got.BindAddress.String() != "127.0.0.2" || got.MinTLSVersion != "VersionTLS13" || !slices.Equal(got.CipherSuites, []string{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}) ||
			!slices.Equal(got.CurvePreferences, []int32{29}) || got.HTTP2MaxStreamsPerConnection != 50 || !got.DisableHTTP2Serving ||
			!got.PermitPortSharing || !got.PermitAddressSharing {
			t.Errorf("%s: serving options %+v, want every flag's value", where, got)
		}
	}
	if secure.BindPort != DefaultSecurePort || webhook.BindPort != 9443 {
		t.Errorf("ports: secure %d, webhook %d; want %d and 9443", secure.BindPort, webhook.BindPort, DefaultSecurePort)
	}
	if len(secure.SNICertKeys) != 1 || secure.ServerCert.CertDirectory != "/certs" || secure.ServerCert.CertKey.CertFile != "c" {
		t.Errorf("secure port's certificates %+v, SNI %+v", secure.ServerCert, secure.SNICertKeys)
	}
	if len(webhook.SNICertKeys) != 0 || webhook.ServerCert != (apiserveroptions.GeneratableKeyCert{}) || cfg.Webhook.CertFile != "c" {
		t.Errorf("webhook's certificates %+v, SNI %+v, files %q; want only --tls-cert-file's files", webhook.ServerCert, webhook.SNICertKeys, cfg.Webhook.CertFile)
	}
}

// servingAddress is where s listens.
func servingAddress(s *apiserveroptions.SecureServingOptions) string {
	if s == nil {
		return ""
	}
	return net.JoinHostPort(s.BindAddress.String(), strconv.Itoa(s.BindPort))
}
