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

package features

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"
)

// repoRoot is two levels up from this package's directory.
const repoRoot = "../.."

// offDefault names each gate of set that the binary does not know, or that
// set turns away from the binary's default. An install may turn any gate on
// itself; what the project ships must not choose for it.
func offDefault(specs map[featuregate.Feature]featuregate.FeatureSpec, set map[string]bool) []string {
	var bad []string
	for name, on := range set {
		spec, ok := specs[featuregate.Feature(name)]
		switch {
		case !ok:
			bad = append(bad, name+" (unknown)")
		case on != spec.Default:
			bad = append(bad, name+"="+strconv.FormatBool(on)+" (binary default "+strconv.FormatBool(spec.Default)+")")
		}
	}
	sort.Strings(bad)
	return bad
}

// parseGateFlag reads the value of --feature-gates (Name=bool,...).
func parseGateFlag(t *testing.T, value string) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	for _, kv := range strings.Split(value, ",") {
		name, v, ok := strings.Cut(kv, "=")
		on, err := strconv.ParseBool(v)
		if !ok || err != nil {
			t.Fatalf("--feature-gates=%s: %q is not Name=bool", value, kv)
		}
		set[name] = on
	}
	return set
}

func TestOffDefaultNamesTheGatesShippedAwayFromTheBinary(t *testing.T) {
	specs := Specs()
	cases := []struct {
		name string
		set  map[string]bool
		want []string
	}{
		{name: "nothing set keeps every default", set: nil},
		{name: "a gate at its default is fine", set: map[string]bool{string(HPAScaleToZero): true, string(HPAExternalMetricFallback): false}},
		{name: "an alpha gate turned on is refused", set: map[string]bool{string(HPAExternalMetricFallback): true},
			want: []string{"HPAExternalMetricFallback=true (binary default false)"}},
		{name: "a beta gate turned off is refused", set: map[string]bool{string(HPAGeneration): false},
			want: []string{"HPAGeneration=false (binary default true)"}},
		{name: "an unknown gate is refused", set: map[string]bool{"NoSuchGate": true}, want: []string{"NoSuchGate (unknown)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := offDefault(specs, tc.set)
			if strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Errorf("offDefault = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDeployAndChartKeepTheBinarysGateDefaults pins that the chart's default
// values and every --feature-gates flag under deploy/ leave each gate at the
// binary's default: alpha off, beta on, unless the user turns one on.
func TestDeployAndChartKeepTheBinarysGateDefaults(t *testing.T) {
	specs := Specs()

	raw, err := os.ReadFile(filepath.Join(repoRoot, "charts", "kube-hpa", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		FeatureGates map[string]bool `json:"featureGates"`
	}
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatalf("charts/kube-hpa/values.yaml: %v", err)
	}
	if bad := offDefault(specs, values.FeatureGates); len(bad) > 0 {
		t.Errorf("charts/kube-hpa/values.yaml featureGates: %s", strings.Join(bad, ", "))
	}

	flag := regexp.MustCompile(`^\s*-\s*"?--feature-gates=([^"\s]+)`)
	seen := 0
	err = filepath.WalkDir(filepath.Join(repoRoot, "deploy"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
			return err
		}
		seen++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := flag.FindStringSubmatch(line); m != nil {
				if bad := offDefault(specs, parseGateFlag(t, m[1])); len(bad) > 0 {
					t.Errorf("%s:%d: %s", path, i+1, strings.Join(bad, ", "))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no manifest under deploy/: the test reads the wrong directory")
	}
}
