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

package main

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// skippedDir tells a directory that holds no documentation of the
// repository's own: version control, build output and dependencies.
func skippedDir(name string) bool {
	return name == ".git" || name == "_output" || name == "vendor" || name == "node_modules"
}

// check reads every *.md under root and returns one problem a line for each
// relative link whose file does not exist or whose #anchor is not a heading
// of the file it points to.
func check(root fs.FS) ([]string, error) {
	docs := map[string]document{}
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && skippedDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".md") {
			content, err := fs.ReadFile(root, p)
			if err != nil {
				return err
			}
			docs[p] = parse(content)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(docs))
	for p := range docs {
		names = append(names, p)
	}
	sort.Strings(names)
	var problems []string
	for _, p := range names {
		for _, l := range docs[p].links {
			if msg := checkLink(root, docs, p, l.target); msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", p, l.line, l.target, msg))
			}
		}
	}
	return problems, nil
}

// checkLink returns why one link of the document at from is broken, or "".
func checkLink(root fs.FS, docs map[string]document, from, target string) string {
	if external(target) {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	if q := strings.Index(file, "?"); q >= 0 {
		file = file[:q]
	}
	if unescaped, err := url.PathUnescape(file); err == nil {
		file = unescaped
	}
	dest := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			dest = path.Clean(strings.TrimPrefix(file, "/"))
		} else {
			dest = path.Clean(path.Join(path.Dir(from), file))
		}
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return "points outside the repository"
		}
		if _, err := fs.Stat(root, dest); err != nil {
			return "no such file"
		}
	}
	if anchor == "" {
		return ""
	}
	doc, ok := docs[dest]
	if !ok {
		// An anchor into a file that is not Markdown (a line of source
		// such as #L10) is GitHub's own and is not checked.
		return ""
	}
	if !doc.anchors.has(anchor) {
		return "no heading with anchor #" + anchor + " in " + dest
	}
	return ""
}

// run checks the repository at dir and prints each broken link.
func run(dir string) int {
	abs, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	problems, err := check(os.DirFS(abs))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "%d broken relative links or anchors\n", len(problems))
		return 1
	}
	return 0
}
