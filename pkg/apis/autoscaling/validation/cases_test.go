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

package validation

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/test/e2e/webhookcases"
)

// TestAdmissionTable validates every manifest of the admission table that
// the e2e suite also sends through the real API server and webhook, so the
// two must agree: the Go validator accepts what the table accepts, and
// rejects the rest naming the table's fields.
func TestAdmissionTable(t *testing.T) {
	table, err := webhookcases.Load(filepath.Join("..", "..", "..", "..", filepath.FromSlash(webhookcases.RelativeDir)))
	if err != nil {
		t.Fatal(err)
	}
	gate := features.NewFeatureGate()
	if err := gate.SetFromMap(table.Gates); err != nil {
		t.Fatalf("the table's gates: %v", err)
	}
	for _, tc := range table.Cases {
		t.Run(tc.Name(), func(t *testing.T) {
			data, err := os.ReadFile(table.Path(tc))
			if err != nil {
				t.Fatal(err)
			}
			hpa := &v2.HorizontalPodAutoscaler{}
			// Strict, as kubectl's server-side field validation is: a
			// field the type lacks is a mistake in the table.
			if err := yaml.UnmarshalStrict(data, hpa); err != nil {
				t.Fatalf("decoding %s: %v", tc.Manifest, err)
			}
			errs := ValidateHorizontalPodAutoscaler(hpa, gate)
			if tc.Allowed {
				if len(errs) > 0 {
					t.Errorf("%s (%s) must be accepted, got: %v", tc.Manifest, tc.Why, errs)
				}
				return
			}
			if len(errs) == 0 {
				t.Fatalf("%s (%s) must be rejected, but it is valid", tc.Manifest, tc.Why)
			}
			got := fieldPaths(errs)
			for _, want := range tc.Fields {
				if !slices.Contains(got, want) {
					t.Errorf("%s (%s): no error on %s; errors: %v", tc.Manifest, tc.Why, want, errs)
				}
			}
		})
	}
}

func fieldPaths(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Field)
	}
	return out
}
