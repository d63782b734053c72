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

package goroutine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helperFiles are the only files of pkg/ that may hold a go statement:
// this package's own, which recover what they start.
var helperFiles = map[string]bool{
	"goroutine/start.go": true,
}

// bypasses returns file:line of each go statement and each call of a method
// named Go (sync.WaitGroup.Go, errgroup.Group.Go, ...) under root that does
// not go through this package. Test files are left out: a goroutine of a
// test that panics fails that test, which is what a test wants.
func bypasses(t *testing.T, root string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				if !helperFiles[rel] {
					found = append(found, fset.Position(n.Pos()).String()+": go statement")
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Go" {
					return true
				}
				// goroutine.Go is the helper itself.
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "goroutine" {
					return true
				}
				found = append(found, fset.Position(n.Pos()).String()+": call of a method named Go")
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	return found
}

func TestEveryGoroutineOfPkgGoesThroughTheHelper(t *testing.T) {
	for _, b := range bypasses(t, "..") {
		t.Errorf("%s starts a goroutine without pkg/goroutine (use goroutine.Go, a goroutine.Group, or goroutine.Recover inside it)", b)
	}
}

// TestGuardFindsEachKindOfBypass pins that the guard can fail: a tree with
// one bypass of each kind is reported at each.
func TestGuardFindsEachKindOfBypass(t *testing.T) {
	const src = `package stray

import "sync"

func f() {
	go func() {}()
	var wg sync.WaitGroup
	wg.Go(func() {})
	wg.Wait()
}
`
	for _, tc := range []struct {
		name string
		file string
		want []string
	}{
		{name: "a go statement and a WaitGroup.Go are both reported", file: "stray/stray.go", want: []string{"stray.go:6:2: go statement", "stray.go:8:2: call of a method named Go"}},
		{name: "a test file is not looked at", file: "stray/stray_test.go", want: nil},
		{name: "a file named like the helper's elsewhere is not exempt", file: "other/start.go", want: []string{"start.go:6:2: go statement", "start.go:8:2: call of a method named Go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, filepath.FromSlash(tc.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			got := bypasses(t, root)
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %d reports ending in %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.HasSuffix(got[i], tc.want[i]) {
					t.Errorf("report %d is %q, want it to end in %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}
