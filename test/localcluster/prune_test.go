package localcluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPruneRunsKeepsTheNewestAndTheRecent(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ages := map[string]time.Duration{
		"oldest": 72 * time.Hour,
		"old":    48 * time.Hour,
		"newer":  24 * time.Hour,
		"recent": time.Minute, // may still be running: never pruned
	}
	for name, age := range ages {
		path := filepath.Join(dir, name)
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}

	pruneRuns(context.Background(), dir, 1, now)

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"recent"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}
