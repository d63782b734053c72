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
	"os"
	"path/filepath"
	"testing"
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
			if got.Address != tc.wantAddress {
				t.Fatalf("secure address %q, want %q", got.Address, tc.wantAddress)
			}
			if tc.wantAddress == "" {
				return
			}
			if got.CertFile != tc.wantCertFile {
				t.Errorf("certificate file %q, want %q", got.CertFile, tc.wantCertFile)
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
