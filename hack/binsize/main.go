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

// Command binsize says what each module adds to a Go binary built with its
// symbols (not -s -w): the bytes of code and data of the symbols of each
// module's packages, as `make binary-size` prints them for
// hpa-controller-manager. Symbols in sections that take no file space
// (.bss, .noptrbss: the FIPS entropy scratch buffer's 32 MiB among them) are
// left out, and so are the runtime's tables (.gopclntab, type links), which
// grow with the code but belong to no package; the sections line says how
// large those are.
package main

import (
	"cmp"
	"debug/buildinfo"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

func main() {
	top := flag.Int("top", 30, "modules to list, largest first")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: binsize [-top N] BINARY")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *top); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

func run(path string, top int) error {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return err
	}
	modules := []string{info.Main.Path}
	for _, d := range info.Deps {
		modules = append(modules, d.Path)
	}
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("%s has no symbol table (built with -s?): %w", path, err)
	}

	sizes := map[string]uint64{}
	var attributed uint64
	for _, s := range syms {
		if int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) || s.Size == 0 {
			continue
		}
		if f.Sections[s.Section].Type == elf.SHT_NOBITS {
			continue
		}
		sizes[moduleOf(packageOf(s.Name), modules)] += s.Size
		attributed += s.Size
	}

	var loaded uint64
	var sections []string
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		loaded += s.Size
		if s.Size >= 1<<20 {
			sections = append(sections, fmt.Sprintf("%s %.1f", s.Name, mb(s.Size)))
		}
	}
	fmt.Printf("%s: %.1f MB loaded (what -s -w leaves): %s MB; %.1f MB of it in symbols of packages\n",
		path, mb(loaded), strings.Join(sections, ", "), mb(attributed))

	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(sizes[b], sizes[a]) })
	for i, n := range names {
		if i == top {
			var rest uint64
			for _, m := range names[i:] {
				rest += sizes[m]
			}
			fmt.Printf("%8.2f MB  %d other modules\n", mb(rest), len(names)-i)
			break
		}
		fmt.Printf("%8.2f MB  %s\n", mb(sizes[n]), n)
	}
	return nil
}

// packageOf is the import path of the package a symbol belongs to: its
// name up to the first dot after the last slash, generic arguments and
// method receivers aside ("k8s.io/api/core/v1.(*Pod).Reset" is
// "k8s.io/api/core/v1"). Linker symbols ("go:", "type:") are "go".
func packageOf(sym string) string {
	if strings.HasPrefix(sym, "go:") || strings.HasPrefix(sym, "type:") {
		return "go"
	}
	if i := strings.IndexAny(sym, "[("); i >= 0 {
		sym = sym[:i]
	}
	slash := strings.LastIndex(sym, "/")
	if dot := strings.Index(sym[slash+1:], "."); dot >= 0 {
		return sym[:slash+1+dot]
	}
	return sym
}

// moduleOf is the module of modules that holds pkg (the longest path that
// is pkg or a prefix of it at a slash), "std" for the standard library,
// and "go" for the linker's own.
func moduleOf(pkg string, modules []string) string {
	best := ""
	for _, m := range modules {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	switch {
	case best != "":
		return best
	case pkg == "go":
		return "go (linker symbols: type data, function tables)"
	case !strings.Contains(strings.Split(pkg, "/")[0], "."):
		return "std"
	default:
		return pkg
	}
}

func mb(n uint64) float64 { return float64(n) / 1e6 }
