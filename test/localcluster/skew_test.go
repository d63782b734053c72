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

	"k8s.io/apimachinery/pkg/util/version"
)

func TestSkewAllowed(t *testing.T) {
	tests := []struct {
		name, apiserver, manager string
		wantErr                  string
	}{
		{name: "the same release is allowed", apiserver: "v1.37.2", manager: "v1.37.2"},
		{name: "another patch of the same minor is allowed", apiserver: "v1.37.2", manager: "v1.37.0"},
		{name: "a manager one minor older is allowed (an upgrade, kube-apiserver first)", apiserver: "v1.37.2+intree", manager: "v1.36.3+intree"},
		{name: "a manager newer than kube-apiserver is refused", apiserver: "v1.36.3+intree", manager: "v1.37.2+intree", wantErr: "is newer than kube-apiserver v1.36.3+intree"},
		{name: "a manager two minors older is refused", apiserver: "v1.37.2", manager: "v1.35.9", wantErr: "more than one minor version older"},
		{name: "another major is refused", apiserver: "v2.0.0", manager: "v1.37.2", wantErr: "different major versions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := skewAllowed(version.MustParseSemantic(tc.apiserver), version.MustParseSemantic(tc.manager))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error = %v, want one containing %q", err, tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), "version-skew-policy"):
				t.Errorf("error = %v, want it to name the version skew policy", err)
			}
		})
	}
}
