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

package localcluster

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestAPIServiceServiceNameIsADNSLabel(t *testing.T) {
	tests := []struct{ group, version string }{
		{"external.metrics.k8s.io", "v1beta1"},
		{"custom.metrics.k8s.io", "v1beta2"},
		{strings.Repeat("very-long-group.", 8) + "example.com", "v1"},
	}
	for _, tc := range tests {
		t.Run(tc.group, func(t *testing.T) {
			name := apiServiceServiceName(tc.group, tc.version)
			if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
				t.Errorf("%q: %v", name, errs)
			}
			if want := name + ".kube-system.svc"; APIServiceServerName(tc.group, tc.version) != want {
				t.Errorf("server name %q, want %q", APIServiceServerName(tc.group, tc.version), want)
			}
		})
	}
}
