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
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// kubectlTimeout bounds one kubectl call, so a hung call fails a test
// instead of stalling it until the test binary's own time-out.
const kubectlTimeout = 2 * time.Minute

// Kubectl runs _output/bin/kubectl against the cluster and returns its
// standard output; the error carries its standard error.
func (c *Cluster) Kubectl(args ...string) (string, error) {
	return c.KubectlWithInput("", args...)
}

// KubectlWithInput is Kubectl with stdin, for `apply -f -`.
func (c *Cluster) KubectlWithInput(stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	full := append([]string{
		"--kubeconfig=" + c.layout.kubeconfig,
		// Per run: every run has a new port, and the user's cache under
		// ~/.kube would collect one directory per run.
		"--cache-dir=" + filepath.Join(c.layout.runDir, "kubectl-cache"),
	}, args...)
	cmd := exec.CommandContext(ctx, c.binary(binKubectl), full...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
