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
	// SchemaFields, when set, are the paths that the CRD schema names
	// instead of Fields: each is a field of Fields or one of its ancestors,
	// where a CEL rule cannot point into a list of structs that come from
	// k8s.io/api (its fieldPath takes no index). The API server validates
	// the schema before it calls the webhook, so a rejection by both names
	// these.
	SchemaFields []string `json:"schemaFields,omitempty"`
	// Why says which rule the case pins.
	Why string `json:"why"`
}

// FieldsNamedByTheSchema are the paths a rejection by the CRD schema names.
func (c Case) FieldsNamedByTheSchema() []string {
	if len(c.SchemaFields) > 0 {
		return c.SchemaFields
	}
	return c.Fields
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
		for _, sf := range c.SchemaFields {
			if !slices.ContainsFunc(c.Fields, func(f string) bool { return isPathOrAncestor(sf, f) }) {
				errs = append(errs, fmt.Errorf("cases[%d]: %s: schemaFields %s is none of fields %v nor an ancestor of one", i, c.Manifest, sf, c.Fields))
			}
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

// isPathOrAncestor reports whether path is field or a path that field
// descends from, as "spec.a" is of "spec.a.b" and "spec.a[0].b".
func isPathOrAncestor(path, field string) bool {
	if !strings.HasPrefix(field, path) {
		return false
	}
	rest := field[len(path):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}
