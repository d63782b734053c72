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
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// MissingBinaries lists the binaries of the cluster that are not in binDir.
// Tests call it to skip, or to fail, before trying to start anything.
func MissingBinaries(binDir string) []string {
	var missing []string
	for _, name := range requiredBinaries() {
		info, err := os.Stat(filepath.Join(binDir, name))
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}

// MissingBinariesOf lists the binaries that a cluster started with opts
// would need and cannot find, as paths: with Options.InTree, those of
// InTreeBinDir too.
func MissingBinariesOf(opts Options) ([]string, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return missingBinaries(opts), nil
}

func missingBinaries(o Options) []string {
	names := requiredBinaries()
	if o.MetricsServer {
		names = append(names, binMetricsServer)
	}
	var missing []string
	for _, name := range names {
		path := o.binaryPath(name)
		info, err := os.Stat(path)
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			missing = append(missing, path)
		}
	}
	return missing
}

// DefaultBinDir is where hack/build-upstream.sh puts the binaries of the
// checkout that contains the working directory.
func DefaultBinDir() (string, error) {
	root, err := FindRepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "_output", "bin"), nil
}

// ensureBinaries builds the binaries when asked to, and otherwise says how
// to get the ones that are missing.
func ensureBinaries(ctx context.Context, o Options) error {
	if o.Build {
		logger := klog.FromContext(ctx)
		logger.Info("Building upstream binaries (a no-op when they are up to date)")
		cmd := exec.CommandContext(ctx, filepath.Join(o.RepoRoot, "hack", "build-upstream.sh"))
		cmd.Dir = o.RepoRoot
		// A cold build takes minutes: show its progress as it comes.
		var out bytes.Buffer
		progress := &lineLogger{logger: logger, msg: "hack/build-upstream.sh"}
		cmd.Stdout = io.MultiWriter(&out, progress)
		cmd.Stderr = cmd.Stdout
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("hack/build-upstream.sh: %w\n%s", err, out.String())
		}
	}
	if missing := missingBinaries(o); len(missing) > 0 {
		how := "hack/build-upstream.sh (or make upstream-binaries)"
		switch {
		case o.InTree:
			how = "make upstream-binaries intree"
		case o.ControlPlaneBinDir != o.BinDir:
			how = "hack/build-upstream.sh, and hack/build-upstream.sh skew for the older control plane of make e2e-skew"
		}
		return fmt.Errorf("missing %s: run %s first", strings.Join(missing, ", "), how)
	}
	return nil
}

// lineLogger logs each complete line written to it.
type lineLogger struct {
	logger  logr.Logger
	msg     string
	partial []byte
}

func (w *lineLogger) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.logger.Info(w.msg, "output", string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
}
