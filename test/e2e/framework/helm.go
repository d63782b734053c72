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

package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// EnvHelmBinary overrides the helm binary (default: _output/bin/helm,
// built by hack/build-upstream.sh).
const EnvHelmBinary = "E2E_HELM"

// helmBinary is Helm's name in _output/bin.
const helmBinary = "helm"

// helmTimeout bounds one helm command.
const helmTimeout = 3 * time.Minute

// Helm runs the checkout's helm against an environment, with caches and
// configuration in a directory of its own, so that nothing of the user's
// Helm setup leaks in.
type Helm struct {
	binary, kubeconfig, home string
}

// NewHelm runs helm on cfg's cluster, keeping its files in home.
func NewHelm(cfg Config, home string) (*Helm, error) {
	binary := binaryPath(cfg.RepoRoot, EnvHelmBinary, helmBinary)
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("helm: %w (make e2e builds it)", err)
	}
	return &Helm{binary: binary, kubeconfig: cfg.Kubeconfig, home: home}, nil
}

// Run runs helm with args and returns its standard output; the error
// carries standard error.
func (h *Helm) Run(ctx context.Context, args ...string) (string, error) {
	return tool{
		binary: h.binary,
		args:   append(args, "--kubeconfig="+h.kubeconfig),
		env: []string{
			"HELM_CACHE_HOME=" + filepath.Join(h.home, "cache"),
			"HELM_CONFIG_HOME=" + filepath.Join(h.home, "config"),
			"HELM_DATA_HOME=" + filepath.Join(h.home, "data"),
		},
		timeout: helmTimeout,
	}.run(ctx)
}
