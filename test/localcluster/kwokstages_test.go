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

func TestKwokStagesFollowEachKustomization(t *testing.T) {
	module := t.TempDir()
	files := map[string]string{
		"node/fast/kustomization.yaml":       "resources:\n- node-initialize.yaml\n",
		"node/fast/node-initialize.yaml":     "kind: Stage\nmetadata:\n  name: node-initialize\n",
		"node/fast/testdata/ignored.yaml":    "kind: NotAStage\n",
		"node/heartbeat/kustomization.yaml":  "resources:\n- node-heartbeat.yaml\n",
		"node/heartbeat/node-heartbeat.yaml": "kind: Stage\nmetadata:\n  name: node-heartbeat\n",
		"pod/fast/kustomization.yaml":        "resources:\n- pod-ready.yaml\n- pod-delete.yaml\n",
		"pod/fast/pod-ready.yaml":            "kind: Stage\nmetadata:\n  name: pod-ready\n",
		"pod/fast/pod-delete.yaml":           "kind: Stage\nmetadata:\n  name: pod-delete\n",
	}
	for path, content := range files {
		full := filepath.Join(module, "kustomize", "stage", filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	got, err := kwokStages(module)
	if err != nil {
		t.Fatal(err)
	}
	out := string(got)
	for _, name := range []string{"node-initialize", "node-heartbeat", "pod-ready", "pod-delete"} {
		if !strings.Contains(out, "name: "+name) {
			t.Errorf("stage %s missing from:\n%s", name, out)
		}
	}
	if strings.Contains(out, "NotAStage") {
		t.Errorf("a file that no kustomization lists was included:\n%s", out)
	}
	if n := strings.Count(out, "---\n"); n != 4 {
		t.Errorf("want 4 YAML documents, got %d:\n%s", n, out)
	}
}

func TestKwokStagesFailWithoutTheModule(t *testing.T) {
	if _, err := kwokStages(t.TempDir()); err == nil {
		t.Fatal("want an error for a directory without kustomize/stage")
	}
}
