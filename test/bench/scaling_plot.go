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
