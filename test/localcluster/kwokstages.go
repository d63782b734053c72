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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// kwokStageDirs are the stage sets of the kwok module (under
// kustomize/stage) that make nodes Ready, keep them so, and take pods to
// Running and Ready right after scheduling. kwok refuses to start without
// stages, and these are the ones the kwok project maintains for its own
// clusters.
func kwokStageDirs() []string {
	return []string{"node/fast", "node/heartbeat", "pod/fast"}
}

// kwokModuleDir returns the directory of the kwok module pinned by
// hack/tools/kwok, downloading it into the module cache when it is not there
// yet (it is, once hack/build-upstream.sh has built kwok).
func kwokModuleDir(ctx context.Context, repoRoot string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "sigs.k8s.io/kwok")
	cmd.Dir = filepath.Join(repoRoot, "hack", "tools", "kwok")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating the kwok module (go mod download in hack/tools/kwok): %w: %s", err, stderr.String())
	}
	var mod struct {
		Dir   string
		Error string
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("reading go mod download output: %w", err)
	}
	if mod.Error != "" || mod.Dir == "" {
		return "", fmt.Errorf("locating the kwok module: %q", mod.Error)
	}
	return mod.Dir, nil
}

// kwokStages concatenates the Stage objects of kwokStageDirs into one
// multi-document YAML for kwok's --config, following each directory's
// kustomization.yaml so that the set is exactly the one the module ships.
func kwokStages(moduleDir string) ([]byte, error) {
	var out bytes.Buffer
	for _, dir := range kwokStageDirs() {
		base := filepath.Join(moduleDir, "kustomize", "stage", filepath.FromSlash(dir))
		data, err := os.ReadFile(filepath.Join(base, "kustomization.yaml"))
		if err != nil {
			return nil, err
		}
		var kustomization struct {
			Resources []string `json:"resources"`
		}
		if err := utilyaml.Unmarshal(data, &kustomization); err != nil {
			return nil, fmt.Errorf("%s: %w", base, err)
		}
		if len(kustomization.Resources) == 0 {
			return nil, fmt.Errorf("%s/kustomization.yaml lists no resources", base)
		}
		for _, resource := range kustomization.Resources {
			stage, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(resource)))
			if err != nil {
				return nil, err
			}
			out.WriteString("---\n")
			out.Write(bytes.TrimSpace(stage))
			out.WriteString("\n")
		}
	}
	return out.Bytes(), nil
}
