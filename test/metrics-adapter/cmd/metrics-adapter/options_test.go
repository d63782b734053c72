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

package main

import (
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestOptions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// want are the kubeconfigs of the lister, authentication and
		// authorization after complete.
		wantLister, wantAuthn, wantAuthz string
		wantNamespace, wantName          string
		wantPrometheusURL                string
		wantPrometheusTimeout            time.Duration
	}{
		{
			name:          "defaults",
			wantNamespace: "kube-hpa-system", wantName: "test-metrics",
			wantPrometheusTimeout: 2 * time.Second,
		},
		{
			name:          "Prometheus mode",
			args:          []string{"--prometheus-url=http://127.0.0.1:9090", "--prometheus-timeout=3s"},
			wantNamespace: "kube-hpa-system", wantName: "test-metrics",
			wantPrometheusURL: "http://127.0.0.1:9090", wantPrometheusTimeout: 3 * time.Second,
		},
		{
			name:       "--kubeconfig stands for the three kubeconfigs of the library",
			args:       []string{"--kubeconfig=/k", "--configmap-namespace=ns", "--configmap-name=cm"},
			wantLister: "/k", wantAuthn: "/k", wantAuthz: "/k",
			wantNamespace: "ns", wantName: "cm",
			wantPrometheusTimeout: 2 * time.Second,
		},
		{
			name:       "a kubeconfig given to the library wins",
			args:       []string{"--kubeconfig=/k", "--authentication-kubeconfig=/authn", "--lister-kubeconfig=/lister"},
			wantLister: "/lister", wantAuthn: "/authn", wantAuthz: "/k",
			wantNamespace: "kube-hpa-system", wantName: "test-metrics",
			wantPrometheusTimeout: 2 * time.Second,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o := newOptions(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			o.complete()
			if o.base.RemoteKubeConfigFile != tc.wantLister || o.base.Authentication.RemoteKubeConfigFile != tc.wantAuthn ||
				o.base.Authorization.RemoteKubeConfigFile != tc.wantAuthz {
				t.Errorf("kubeconfigs lister %q authn %q authz %q, want %q %q %q",
					o.base.RemoteKubeConfigFile, o.base.Authentication.RemoteKubeConfigFile, o.base.Authorization.RemoteKubeConfigFile,
					tc.wantLister, tc.wantAuthn, tc.wantAuthz)
			}
			if o.configMapNamespace != tc.wantNamespace || o.configMapName != tc.wantName {
				t.Errorf("ConfigMap %s/%s, want %s/%s", o.configMapNamespace, o.configMapName, tc.wantNamespace, tc.wantName)
			}
			if o.prometheusURL != tc.wantPrometheusURL || o.prometheusTimeout != tc.wantPrometheusTimeout {
				t.Errorf("Prometheus %q timeout %v, want %q %v", o.prometheusURL, o.prometheusTimeout, tc.wantPrometheusURL, tc.wantPrometheusTimeout)
			}
			if o.base.SecureServing.BindPort != defaultSecurePort {
				t.Errorf("secure port %d, want %d", o.base.SecureServing.BindPort, defaultSecurePort)
			}
			if o.base.SecureServing.ServerCert.CertDirectory != "" {
				t.Errorf("a self-signed certificate would be written under %q", o.base.SecureServing.ServerCert.CertDirectory)
			}
			for _, path := range []string{"/metrics", fetchesPath, fetchTimesPath, "/healthz"} {
				if !slices.Contains(o.base.Authorization.AlwaysAllowPaths, path) {
					t.Errorf("%s needs authorization: always allowed are %v", path, o.base.Authorization.AlwaysAllowPaths)
				}
			}
		})
	}
}
