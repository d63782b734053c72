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

package app

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The monitoring files this test reads, from the repository's root.
const (
	ruleFile      = "deploy/prometheusrule.yaml"
	dashboardFile = "deploy/grafana/kube-hpa-dashboard.json"
	ksmConfigFile = "deploy/kube-state-metrics/custom-resource-state.yaml"
	runbookDir    = "docs/runbooks"
)

// expectedFuture are metrics that the rules or the dashboard name before
// the controller exports them, each with why. Each must be named somewhere,
// and none may already be exported: the entry, and the runbook's note that
// its alert cannot fire yet, go when it ships.
var expectedFuture = map[string]string{}

// kubeStateMetrics are the series of kube-state-metrics itself that the
// rules and the dashboard read for native HPAs, for what the controller
// writes to an HPA's status but does not export: the fallback condition and
// the current replicas (kube-state-metrics' HorizontalPodAutoscaler
// metrics, both stable). The extended kind's are read from ksmConfigFile.
var kubeStateMetrics = []string{
	"kube_horizontalpodautoscaler_status_condition",
	"kube_horizontalpodautoscaler_status_current_replicas",
}

// TestMonitoringMetricsAreExported fails when the PrometheusRule or the
// dashboard names a metric that nothing exports: not the controller (its
// registry, built as the binary builds it), not kube-state-metrics (its
// own HPA series, or those that deploy/kube-state-metrics configures), and
// not one of expectedFuture.
func TestMonitoringMetricsAreExported(t *testing.T) {
	known := exportedNames(t)
	for _, n := range kubeStateMetrics {
		known[n] = "kube-state-metrics"
	}
	known["up"] = "Prometheus itself, for every target it scrapes"
	for _, n := range ksmCustomResourceNames(t) {
		known[n] = ksmConfigFile
	}
	for n := range expectedFuture {
		if source, ok := known[n]; ok {
			t.Errorf("%s is exported now (%s): drop it from expectedFuture and the runbook's note that its alert waits for it", n, source)
		}
	}

	used := map[string][]string{} // metric name: where it is used
	for where, expr := range ruleExpressions(t) {
		use(t, used, where, promqlNames(expr))
	}
	for where, names := range dashboardNames(t) {
		use(t, used, where, names)
	}
	for _, n := range sortedKeys(used) {
		if _, ok := known[n]; ok {
			continue
		}
		if why, ok := expectedFuture[n]; ok {
			t.Logf("%s, used by %s, is not exported yet: %s", n, strings.Join(used[n], ", "), why)
			continue
		}
		t.Errorf("%s, used by %s, is exported by neither the controller nor kube-state-metrics", n, strings.Join(used[n], ", "))
	}
	for n := range expectedFuture {
		if _, ok := used[n]; !ok {
			t.Errorf("expectedFuture lists %s, which nothing uses", n)
		}
	}
}

// use records that where names the metrics, each expression at least one.
func use(t *testing.T, used map[string][]string, where string, names []string) {
	t.Helper()
	if len(names) == 0 {
		t.Errorf("%s names no metric", where)
	}
	for _, n := range names {
		if !slices.Contains(used[n], where) {
			used[n] = append(used[n], where)
		}
	}
}

// chartOnlyAlerts are alerts the chart renders only with values other than
// the defaults of deploy/prometheusrule.yaml, each with when.
var chartOnlyAlerts = map[string]string{
	"KubeHPAShardsUnheld": "sharding.enabled, in place of KubeHPANoLeader (tested by test/prometheus/rules_sharded_test.yaml)",
}

// TestMonitoringRunbooks checks that every alert's runbook_url points to a
// runbook of docs/runbooks named after it, and that every runbook there
// belongs to an alert.
func TestMonitoringRunbooks(t *testing.T) {
	alerts := map[string]bool{}
	for _, r := range rules(t) {
		if r.Alert == "" {
			continue
		}
		alerts[r.Alert] = true
		want := r.Alert + ".md"
		if url := r.Annotations["runbook_url"]; path.Base(url) != want {
			t.Errorf("alert %s: runbook_url %q does not end in /%s", r.Alert, url, want)
		}
		if _, err := os.Stat(repoPath(filepath.Join(runbookDir, want))); err != nil {
			t.Errorf("alert %s has no runbook: %v", r.Alert, err)
		}
	}
	files, err := filepath.Glob(repoPath(filepath.Join(runbookDir, "*.md")))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".md"); name != "README" && !alerts[name] && chartOnlyAlerts[name] == "" {
			t.Errorf("%s/%s.md is the runbook of no alert of %s", runbookDir, name, ruleFile)
		}
	}
}

// rule is one rule of the PrometheusRule.
type rule struct {
	Alert       string            `json:"alert"`
	Record      string            `json:"record"`
	Expr        string            `json:"expr"`
	Annotations map[string]string `json:"annotations"`
}

func rules(t *testing.T) []rule {
	var pr struct {
		Spec struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []rule `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	readYAML(t, ruleFile, &pr)
	var all []rule
	for _, g := range pr.Spec.Groups {
		all = append(all, g.Rules...)
	}
	if len(all) == 0 {
		t.Fatalf("%s has no rules", ruleFile)
	}
	return all
}

// ruleExpressions are the rules' expressions by the rule they belong to.
func ruleExpressions(t *testing.T) map[string]string {
	exprs := map[string]string{}
	for _, r := range rules(t) {
		exprs[ruleFile+" "+r.Alert+r.Record] = r.Expr
	}
	return exprs
}

// dashboardNames are the metric names of each query of the dashboard: every
// "expr" of its JSON, wherever the panel, and each query variable's query.
func dashboardNames(t *testing.T) map[string][]string {
	b, err := os.ReadFile(repoPath(dashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	names := map[string][]string{}
	exprs := 0
	collectExprs(d["panels"], "", func(panel, expr string) {
		exprs++
		where := dashboardFile + " panel " + strconv.Quote(panel)
		names[where] = append(names[where], promqlNames(expr)...)
	})
	templating, _ := d["templating"].(map[string]any)
	vars, _ := templating["list"].([]any)
	for _, v := range vars {
		v, _ := v.(map[string]any)
		if v["type"] != "query" {
			continue
		}
		q := v["query"]
		if m, ok := q.(map[string]any); ok {
			q = m["query"]
		}
		s, _ := q.(string)
		got, err := grafanaVariableNames(s)
		if err != nil {
			t.Errorf("%s variable %v: %v", dashboardFile, v["name"], err)
		}
		names[dashboardFile+" variable "+s] = got
	}
	if exprs == 0 {
		t.Fatalf("%s has no query", dashboardFile)
	}
	return names
}

// collectExprs calls found with every string under an "expr" key of v, and
// the title of the panel it is in.
func collectExprs(v any, panel string, found func(panel, expr string)) {
	switch v := v.(type) {
	case map[string]any:
		if title, ok := v["title"].(string); ok {
			panel = title
		}
		for _, k := range sortedKeys(v) {
			if s, ok := v[k].(string); ok && k == "expr" {
				found(panel, s)
				continue
			}
			collectExprs(v[k], panel, found)
		}
	case []any:
		for _, e := range v {
			collectExprs(e, panel, found)
		}
	}
}

// ksmCustomResourceNames are the metrics that ksmConfigFile has
// kube-state-metrics export: each metric's name under its resource's
// metricNamePrefix (kube_customresource when unset, as kube-state-metrics).
func ksmCustomResourceNames(t *testing.T) []string {
	var cfg struct {
		Spec struct {
			Resources []struct {
				MetricNamePrefix *string `json:"metricNamePrefix"`
				Metrics          []struct {
					Name string `json:"name"`
				} `json:"metrics"`
			} `json:"resources"`
		} `json:"spec"`
	}
	readYAML(t, ksmConfigFile, &cfg)
	var names []string
	for _, r := range cfg.Spec.Resources {
		prefix := "kube_customresource"
		if r.MetricNamePrefix != nil {
			prefix = *r.MetricNamePrefix
		}
		for _, m := range r.Metrics {
			names = append(names, prefix+"_"+m.Name)
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s configures no metric", ksmConfigFile)
	}
	return names
}

func readYAML(t *testing.T, file string, into any) {
	t.Helper()
	b, err := os.ReadFile(repoPath(file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// repoPath is a path of the repository, from this package's directory.
func repoPath(p string) string { return filepath.Join("..", "..", "..", p) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
