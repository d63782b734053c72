// Package webhookcases reads the admission table of
// test/e2e/testdata/webhook-cases, which the validation unit test and the
// e2e suite both check, so that the Go validator and the real API server
// are held to the same answers. It depends on nothing but YAML, so that a
// unit test can use it without pulling in the e2e framework.
package webhookcases

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// RelativeDir is the table's directory relative to the repository root.
const RelativeDir = "test/e2e/testdata/webhook-cases"

// indexFile lists the cases; every other YAML file of the directory is a
// manifest.
const indexFile = "cases.yaml"

// Table is the content of cases.yaml.
type Table struct {
	// Gates are the feature gates the answers assume; the others are at
	// their defaults.
	Gates map[string]bool `json:"gates"`
	Cases []Case          `json:"cases"`
	// Dir is where the table was read from.
	Dir string `json:"-"`
}

// Case is one manifest and the answer its creation must get.
type Case struct {
	// Manifest is the file name of the HPA, in the table's directory.
	Manifest string `json:"manifest"`
	Allowed  bool   `json:"allowed"`
	// Fields are field paths that a rejection must name, as
	// field.Path.String() writes them.
	Fields []string `json:"fields,omitempty"`
	// Why says which rule the case pins.
	Why string `json:"why"`
}

// Name is the manifest's file name without its extension.
func (c Case) Name() string { return strings.TrimSuffix(c.Manifest, filepath.Ext(c.Manifest)) }

// Path is the manifest's path.
func (t *Table) Path(c Case) string { return filepath.Join(t.Dir, c.Manifest) }

// Load reads the table of dir and checks that it and the directory agree:
// every manifest is listed once, every listed manifest exists, a rejection
// names at least one field and an acceptance none.
func Load(dir string) (*Table, error) {
	data, err := os.ReadFile(filepath.Join(dir, indexFile))
	if err != nil {
		return nil, err
	}
	t := &Table{Dir: dir}
	if err := yaml.UnmarshalStrict(data, t); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, indexFile), err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var manifests []string
	for _, f := range files {
		if base := filepath.Base(f); base != indexFile {
			manifests = append(manifests, base)
		}
	}
	var errs []error
	seen := map[string]bool{}
	for i, c := range t.Cases {
		switch {
		case seen[c.Manifest]:
			errs = append(errs, fmt.Errorf("cases[%d]: %s is listed twice", i, c.Manifest))
		case !slices.Contains(manifests, c.Manifest):
			errs = append(errs, fmt.Errorf("cases[%d]: no manifest %s in %s", i, c.Manifest, dir))
		case c.Allowed && len(c.Fields) > 0:
			errs = append(errs, fmt.Errorf("cases[%d]: %s is allowed but lists fields", i, c.Manifest))
		case !c.Allowed && len(c.Fields) == 0:
			errs = append(errs, fmt.Errorf("cases[%d]: %s is rejected but lists no field", i, c.Manifest))
		case c.Why == "":
			errs = append(errs, fmt.Errorf("cases[%d]: %s does not say why", i, c.Manifest))
		}
		seen[c.Manifest] = true
	}
	for _, m := range manifests {
		if !seen[m] {
			errs = append(errs, fmt.Errorf("%s is in %s but not in %s", m, dir, indexFile))
		}
	}
	return t, errors.Join(errs...)
}
