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
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// kwokConfigDirs are the kustomizations of the kwok module (under
// kustomize/) that kwok's --config carries: the stages that make nodes
// Ready, keep them so, and take pods to Running and Ready right after
// scheduling (kwok refuses to start without stages), and metrics/resource,
// which serves each node's kubelet /metrics/resource for metrics-server to
// scrape. All are the ones the kwok project maintains for its own
// clusters; kwokUsage says what each container uses.
func kwokConfigDirs() []string {
	return []string{"stage/node/fast", "stage/node/heartbeat", "stage/pod/fast", "metrics/resource"}
}

// kwokUsage is the ClusterResourceUsage of the emulated kubelets: kwok's
// own metrics/usage (a pod's usage from its annotations), with one
// container's usage settable apart (kwok/usage.yaml).
//
//go:embed kwok/usage.yaml
var kwokUsage []byte

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

// kwokConfig concatenates the objects of kwokConfigDirs and kwokUsage
// into one multi-document YAML for kwok's --config, following each
// directory's kustomization.yaml so that the set is exactly the one the
// module ships.
func kwokConfig(moduleDir string) ([]byte, error) {
	var out bytes.Buffer
	for _, dir := range kwokConfigDirs() {
		base := filepath.Join(moduleDir, "kustomize", filepath.FromSlash(dir))
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
			object, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(resource)))
			if err != nil {
				return nil, err
			}
			out.WriteString("---\n")
			out.Write(bytes.TrimSpace(object))
			out.WriteString("\n")
		}
	}
	out.WriteString("---\n")
	out.Write(bytes.TrimSpace(kwokUsage))
	out.WriteString("\n")
	return out.Bytes(), nil
}
