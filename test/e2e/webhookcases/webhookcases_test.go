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

package webhookcases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsPathOrAncestor(t *testing.T) {
	cases := []struct {
		name, path, field string
		want              bool
	}{
		{name: "a path is its own ancestor", path: "spec.a", field: "spec.a", want: true},
		{name: "a parent struct is an ancestor", path: "spec.a", field: "spec.a.b", want: true},
		{name: "a list is an ancestor of its items' fields", path: "spec.a", field: "spec.a[0].b", want: true},
		{name: "a longer name sharing the prefix is not an ancestor", path: "spec.a", field: "spec.ab", want: false},
		{name: "a child is not an ancestor", path: "spec.a.b", field: "spec.a", want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := isPathOrAncestor(tc.path, tc.field); got != tc.want {
				t.Errorf("isPathOrAncestor(%q, %q) = %t, want %t", tc.path, tc.field, got, tc.want)
			}
		})
	}
}

func TestLoadChecksSchemaFields(t *testing.T) {
	cases := []struct {
		name    string
		row     string
		wantErr string
	}{
		{
			name: "schemaFields naming an ancestor of a field are accepted",
			row:  "  fields: ['spec.behavior.scaleUp.policies[0].value']\n  schemaFields: [spec.behavior.scaleUp.policies]\n",
		},
		{
			name:    "schemaFields naming an unrelated path are refused",
			row:     "  fields: ['spec.behavior.scaleUp.policies[0].value']\n  schemaFields: [spec.maxReplicas]\n",
			wantErr: "schemaFields spec.maxReplicas is none of fields",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			index := "cases:\n- manifest: reject-x.yaml\n  allowed: false\n  why: pinned\n" + tc.row
			for name, content := range map[string]string{indexFile: index, "reject-x.yaml": "kind: HorizontalPodAutoscaler\n"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Load: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Load: got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
