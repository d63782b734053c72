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
	"context"
	"os"
	"path/filepath"
	"sort"
	"time"

	"k8s.io/klog/v2"
)

// pruneMinAge protects the run directories of clusters that may still be
// running (another test binary, a `make run` in another terminal): only runs
// older than this are ever pruned.
const pruneMinAge = time.Hour

// pruneRuns deletes the oldest run directories under outputDir beyond the
// newest keep ones, so that _output does not grow by a run per `go test`.
func pruneRuns(ctx context.Context, outputDir string, keep int, now time.Time) {
	entries, err := os.ReadDir(outputDir)
	if err != nil {
		return // nothing to prune yet
	}
	type run struct {
		path    string
		modTime time.Time
	}
	var runs []run
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		runs = append(runs, run{filepath.Join(outputDir, e.Name()), info.ModTime()})
	}
	if len(runs) <= keep {
		return
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].modTime.After(runs[j].modTime) })
	logger := klog.FromContext(ctx)
	for _, r := range runs[keep:] {
		if now.Sub(r.modTime) < pruneMinAge {
			continue
		}
		if err := os.RemoveAll(r.path); err != nil {
			logger.Info("Could not prune an old run directory", "dir", r.path, "err", err)
		}
	}
}
