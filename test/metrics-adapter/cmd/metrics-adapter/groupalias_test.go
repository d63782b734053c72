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
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGroupAliasRewrite(t *testing.T) {
	aliases := groupAliases{"external.second.example.com": "external.metrics.k8s.io", "custom.second.example.com": "custom.metrics.k8s.io"}
	cases := []struct {
		name, path, want string
		rewritten        bool
	}{
		{"an external metric under its alias", "/apis/external.second.example.com/v1beta1/namespaces/ns/queue_depth",
			"/apis/external.metrics.k8s.io/v1beta1/namespaces/ns/queue_depth", true},
		{"a pods metric under its alias", "/apis/custom.second.example.com/v1beta2/namespaces/ns/pods/*/qps",
			"/apis/custom.metrics.k8s.io/v1beta2/namespaces/ns/pods/*/qps", true},
		{"the version's discovery", "/apis/custom.second.example.com/v1beta2", "/apis/custom.metrics.k8s.io/v1beta2", true},
		{"the group's discovery", "/apis/custom.second.example.com", "/apis/custom.metrics.k8s.io", true},
		{"the default group is left alone", "/apis/external.metrics.k8s.io/v1beta1/namespaces/ns/q", "/apis/external.metrics.k8s.io/v1beta1/namespaces/ns/q", false},
		{"a group that only starts like an alias", "/apis/external.second.example.com.evil/v1beta1", "/apis/external.second.example.com.evil/v1beta1", false},
		{"a path outside /apis", "/healthz", "/healthz", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, rewritten := aliases.rewrite(tc.path)
			if got != tc.want || rewritten != tc.rewritten {
				t.Errorf("rewrite(%q) = %q, %v; want %q, %v", tc.path, got, rewritten, tc.want, tc.rewritten)
			}
		})
	}
}

func TestGroupAliasHandlerServesTheGroupsPath(t *testing.T) {
	var seen string
	h := groupAliases{"external.second.example.com": "external.metrics.k8s.io"}.handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen = r.URL.Path + "?" + r.URL.RawQuery + " " + r.RequestURI
	}))
	req := httptest.NewRequest(http.MethodGet, "/apis/external.second.example.com/v1beta1/namespaces/ns/q?labelSelector=a%3Db", nil)
	h.ServeHTTP(httptest.NewRecorder(), req)
	want := "/apis/external.metrics.k8s.io/v1beta1/namespaces/ns/q?labelSelector=a%3Db /apis/external.metrics.k8s.io/v1beta1/namespaces/ns/q?labelSelector=a%3Db"
	if seen != want {
		t.Errorf("served %q, want %q", seen, want)
	}
}

func TestGroupAliasValidate(t *testing.T) {
	cases := []struct {
		name    string
		aliases groupAliases
		wantErr string
	}{
		{"aliases of both metrics groups", groupAliases{"a.example.com": "custom.metrics.k8s.io", "b.example.com": "external.metrics.k8s.io"}, ""},
		{"an alias that is not a DNS subdomain", groupAliases{"A.example.com": "custom.metrics.k8s.io"}, "not a DNS subdomain"},
		{"an alias of a metrics group itself", groupAliases{"external.metrics.k8s.io": "custom.metrics.k8s.io"}, "serves external.metrics.k8s.io already"},
		{"an alias of another group", groupAliases{"a.example.com": "apps"}, "stands for custom.metrics.k8s.io or external.metrics.k8s.io"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.aliases.validate()
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("validate = %v, want error containing %q", err, tc.wantErr)
			}
		})
	}
}
