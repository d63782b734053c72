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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	ctx, cancel := context.WithTimeout(ctx, helmTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.binary, append(args, "--kubeconfig="+h.kubeconfig)...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(h.home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(h.home, "config"),
		"HELM_DATA_HOME="+filepath.Join(h.home, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
