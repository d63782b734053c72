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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKwokConfigFollowsEachKustomization(t *testing.T) {
	module := t.TempDir()
	files := map[string]string{
		"stage/node/fast/kustomization.yaml":       "resources:\n- node-initialize.yaml\n",
		"stage/node/fast/node-initialize.yaml":     "kind: Stage\nmetadata:\n  name: node-initialize\n",
		"stage/node/fast/testdata/ignored.yaml":    "kind: NotAStage\n",
		"stage/node/heartbeat/kustomization.yaml":  "resources:\n- node-heartbeat.yaml\n",
		"stage/node/heartbeat/node-heartbeat.yaml": "kind: Stage\nmetadata:\n  name: node-heartbeat\n",
		"stage/pod/fast/kustomization.yaml":        "resources:\n- pod-ready.yaml\n- pod-delete.yaml\n",
		"stage/pod/fast/pod-ready.yaml":            "kind: Stage\nmetadata:\n  name: pod-ready\n",
		"stage/pod/fast/pod-delete.yaml":           "kind: Stage\nmetadata:\n  name: pod-delete\n",
		"metrics/resource/kustomization.yaml":      "resources:\n- metrics-resource.yaml\n",
		"metrics/resource/metrics-resource.yaml":   "kind: Metric\nmetadata:\n  name: metrics-resource\n",
	}
	for path, content := range files {
		full := filepath.Join(module, "kustomize", filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	got, err := kwokConfig(module)
	if err != nil {
		t.Fatal(err)
	}
	out := string(got)
	for _, name := range []string{"node-initialize", "node-heartbeat", "pod-ready", "pod-delete", "metrics-resource", "kube-hpa-usage-from-annotations"} {
		if !strings.Contains(out, "name: "+name) {
			t.Errorf("object %s missing from:\n%s", name, out)
		}
	}
	if strings.Contains(out, "NotAStage") {
		t.Errorf("a file that no kustomization lists was included:\n%s", out)
	}
	if n := strings.Count(out, "---\n"); n != 6 {
		t.Errorf("want 6 YAML documents, got %d:\n%s", n, out)
	}
}

func TestKwokConfigFailsWithoutTheModule(t *testing.T) {
	if _, err := kwokConfig(t.TempDir()); err == nil {
		t.Fatal("want an error for a directory without kustomize/")
	}
}
