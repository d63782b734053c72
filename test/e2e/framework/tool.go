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
	"os/exec"
	"strings"
	"time"
)

// tool is one run of a command-line tool the specs use as a user would
// (kubectl, helm, hpa-controller-manager migrate).
type tool struct {
	binary  string
	args    []string
	env     []string // added to the process's environment
	stdin   string
	timeout time.Duration
}

// run runs t and returns its standard output; the error carries standard
// error, so that a failed spec shows what the tool said.
func (t tool) run(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.binary, t.args...)
	if len(t.env) > 0 {
		cmd.Env = append(cmd.Environ(), t.env...)
	}
	if t.stdin != "" {
		cmd.Stdin = strings.NewReader(t.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", t.binary, strings.Join(t.args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
