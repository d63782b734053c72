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
