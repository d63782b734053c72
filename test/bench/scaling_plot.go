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

package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// PlotModule is the module that draws the scaling scenario's plot, under
// the repository root: a module of its own, so that its plotting library
// stays out of the main module's dependencies.
const PlotModule = "test/bench/plot"

// PlotScaling draws the scaling scenario of the JSON result at jsonPath
// into the SVG file svgPath, by `go run` of PlotModule in its own
// directory (the first time, the Go toolchain fetches its dependencies).
func PlotScaling(ctx context.Context, repoRoot, jsonPath, svgPath string) error {
	in, err := filepath.Abs(jsonPath)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(svgPath)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "run", ".", "-in", in, "-out", out)
	cmd.Dir = filepath.Join(repoRoot, filepath.FromSlash(PlotModule))
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("plotting %s with %s: %w: %s", in, PlotModule, err, output)
	}
	return nil
}
