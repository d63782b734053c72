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

package integration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2/ktesting"
	"sigs.k8s.io/yaml"

	xhpav2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/apis/autoscaling/validation"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/test/e2e/webhookcases"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// gateDependent are the rows of the admission table whose answer depends on
// a feature gate: the table's gates allow them, and the webhook alone refuses
// them while that gate is off, since a CRD schema knows no gates. The schema
// must accept them. TestGateDependentRowsAreExactlyThoseAGateDecides keeps
// this list honest against the Go validator.
var gateDependent = map[string]struct {
	gate featuregate.Feature
	why  string
}{
	"accept-fallback.yaml":                  {features.HPAExternalMetricFallback, "a fallback needs HPAExternalMetricFallback (alpha)"},
	"accept-metric-source.yaml":             {features.HPAMetricSource, "a metric source needs HPAMetricSource (alpha)"},
	"accept-fallback-default-duration.yaml": {features.HPAExternalMetricFallback, "a fallback needs HPAExternalMetricFallback (alpha)"},
	"accept-fallback-minimum-duration.yaml": {features.HPAExternalMetricFallback, "a fallback needs HPAExternalMetricFallback (alpha)"},
	"accept-fallback-maximum-duration.yaml": {features.HPAExternalMetricFallback, "a fallback needs HPAExternalMetricFallback (alpha)"},
	"accept-fallback-strategy-usemax.yaml":  {features.HPAExternalMetricFallbackStrategy, "fallback.strategy UseMax needs HPAExternalMetricFallbackStrategy (alpha)"},
	"accept-fallback-strategy-usemin.yaml":  {features.HPAExternalMetricFallbackStrategy, "fallback.strategy UseMin needs HPAExternalMetricFallbackStrategy (alpha)"},
	"accept-fallback-strategy-static.yaml":  {features.HPAExternalMetricFallback, "a fallback needs HPAExternalMetricFallback (alpha)"},
	"accept-scale-to-zero-external.yaml":    {features.HPAScaleToZero, "minReplicas 0 needs HPAScaleToZero (beta)"},
	"accept-scale-to-zero-object.yaml":      {features.HPAScaleToZero, "minReplicas 0 needs HPAScaleToZero (beta)"},
	"accept-scale-to-zero-mixed.yaml":       {features.HPAScaleToZero, "minReplicas 0 needs HPAScaleToZero (beta)"},
	"accept-sync-period.yaml":               {features.HPAConfigurableSyncPeriod, "spec.syncPeriodSeconds needs HPAConfigurableSyncPeriod (alpha)"},
	"accept-sync-period-maximum.yaml":       {features.HPAConfigurableSyncPeriod, "spec.syncPeriodSeconds needs HPAConfigurableSyncPeriod (alpha)"},
	"accept-sync-period-with-rules.yaml":    {features.HPAConfigurableSyncPeriod, "spec.syncPeriodSeconds needs HPAConfigurableSyncPeriod (alpha)"},
}

// beyondTheCELBudget are the rejections that hold whatever the gates say
// but that the schema leaves to the webhook: the check costs more than the
// API server lets a CRD's rules cost, because the string it reads comes
// from a k8s.io/api struct that sets no maxLength (the server then
// estimates it at 3 MiB, times 10 metrics).
var beyondTheCELBudget = map[string]string{
	"reject-container-resource-name-not-qualified.yaml": "a qualified-name check (and the extended resource name rule built on it) on containerResource.name",
}

// TestCRDLoadsWithinTheCELCostBudget submits the generated CRD to the real
// API server, which refuses a CRD whose rules it estimates above its cost
// budget, and checks that the served CRD enforces the rules of the file.
func TestCRDLoadsWithinTheCELCostBudget(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	client := dynamic.NewForConfigOrDie(cluster.RESTConfig())
	crd := readGeneratedCRD(t)
	crdClient := client.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})

	// A dry run validates everything a real apply does, the cost
	// estimation included, without touching the CRD the other tests use.
	if _, err := crdClient.Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: "crd-schema-test", Force: true, DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatalf("the API server refuses the generated CRD: %v", err)
	}

	served, err := crdClient.Get(ctx, crd.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, got := countRules(crd.Object), countRules(served.Object)
	if want == 0 {
		t.Fatal("the generated CRD carries no x-kubernetes-validations rule")
	}
	if got != want {
		t.Errorf("the served CRD carries %d rules, the generated one %d: the cluster runs another CRD", got, want)
	}
	for _, cond := range []string{"Established", "NamesAccepted"} {
		if !conditionIsTrue(served, cond) {
			t.Errorf("the served CRD is not %s: %v", cond, served.Object["status"])
		}
	}
}

// TestCRDSchemaAloneAnswersTheAdmissionTable creates every manifest of the
// admission table through a real API server that has the CRD and no
// webhook, as a cluster does during a webhook outage: the schema must refuse
// every rejection that no gate decides, naming the table's fields, and
// accept every acceptance.
func TestCRDSchemaAloneAnswersTheAdmissionTable(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	assertNoWebhookFor(ctx, t, cluster, xhpav2.GroupName)
	table := loadAdmissionTable(t)
	ns := createNamespace(ctx, t, cluster)
	hpas := dynamic.NewForConfigOrDie(cluster.RESTConfig()).Resource(xhpav2.SchemeGroupVersion.WithResource(xhpav2.Resource)).Namespace(ns)

	for _, c := range table.Cases {
		t.Run(c.Name(), func(t *testing.T) {
			obj := readManifest(t, table.Path(c))
			_, err := hpas.Create(ctx, obj, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
			if gd, ok := gateDependent[c.Manifest]; ok {
				if err != nil {
					t.Fatalf("%s (%s) depends on %s, which only the webhook knows; the schema refused it: %v", c.Manifest, c.Why, gd.gate, err)
				}
				return
			}
			if why, ok := beyondTheCELBudget[c.Manifest]; ok {
				if err == nil {
					t.Logf("webhook only: %s (%s): %s", c.Manifest, c.Why, why)
					return
				}
				t.Fatalf("%s is listed as beyond the CEL budget (%s), but the schema refuses it: %v; remove it from the list", c.Manifest, why, err)
			}
			if c.Allowed {
				if err != nil {
					t.Fatalf("%s (%s) must be accepted by the schema: %v", c.Manifest, c.Why, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("%s (%s) was stored: the schema alone must refuse it", c.Manifest, c.Why)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("%s (%s): want a schema rejection (422 Invalid), got %v", c.Manifest, c.Why, err)
			}
			named := causeFields(err)
			for _, want := range c.FieldsNamedByTheSchema() {
				if !slices.Contains(named, want) {
					t.Errorf("%s (%s): the rejection does not name %s; it names %v: %v", c.Manifest, c.Why, want, named, err)
				}
			}
		})
	}
}

// TestGateDependentRowsAreExactlyThoseAGateDecides derives, from the Go
// validator, which rows of the table change answer when one gate is turned
// off, and requires that to be gateDependent: a row missing from the list
// would be expected of the schema although only a gate decides it, an extra
// row would excuse the schema for nothing. It needs no cluster.
func TestGateDependentRowsAreExactlyThoseAGateDecides(t *testing.T) {
	table := loadAdmissionTable(t)
	decidedBy := map[string][]featuregate.Feature{}
	for _, c := range table.Cases {
		hpa := decodeManifest(t, table.Path(c))
		base := len(validation.ValidateHorizontalPodAutoscaler(hpa, tableGate(t, table, "", false))) == 0
		// HPAConfigurableTolerance is GA and locked on since v1.37: it cannot
		// be turned off, and no row depends on it.
		for _, gate := range []featuregate.Feature{features.HPAExternalMetricFallback, features.HPAScaleToZero, features.HPAExternalMetricFallbackStrategy, features.HPAConfigurableSyncPeriod, features.HPAMetricSource} {
			flipped := len(validation.ValidateHorizontalPodAutoscaler(hpa, tableGate(t, table, gate, false))) == 0
			if flipped != base {
				decidedBy[c.Manifest] = append(decidedBy[c.Manifest], gate)
			}
		}
	}
	for manifest, gates := range decidedBy {
		gd, ok := gateDependent[manifest]
		switch {
		case !ok:
			t.Errorf("%s changes answer with %v off but is not in gateDependent", manifest, gates)
		case !slices.Contains(gates, gd.gate):
			t.Errorf("%s is listed as depending on %s, but the gates that decide it are %v", manifest, gd.gate, gates)
		}
	}
	for manifest := range gateDependent {
		if _, ok := decidedBy[manifest]; !ok {
			t.Errorf("%s is in gateDependent, but no gate changes its answer", manifest)
		}
	}
	for manifest := range beyondTheCELBudget {
		c, ok := findCase(table, manifest)
		switch {
		case !ok:
			t.Errorf("%s is in beyondTheCELBudget but not in the table", manifest)
		case c.Allowed || len(decidedBy[manifest]) > 0:
			t.Errorf("%s is in beyondTheCELBudget but is not a rejection that holds whatever the gates say", manifest)
		}
	}
}

// TestExplainShowsTheFallbackLimits is what a user types to learn the
// fallback's limits, and where a metric's source (KEP-6382) is documented.
func TestExplainShowsTheFallbackLimits(t *testing.T) {
	cluster := sharedCluster(t)
	for _, tc := range []struct {
		field string
		want  []string
	}{
		{"xhpa.spec.metrics.external.fallback", []string{"failureDurationSeconds", "180", "86400", "at least 1", "HPAExternalMetricFallback"}},
		{"xhpa.spec.metrics.pods.metric.source", []string{"apiGroup", "custom.metrics.k8s.io", "HPAMetricSource", "DNS", "subdomain"}},
		{"xhpa.spec.metrics.external.metric.source.apiGroup", []string{"API group", "external.metrics.k8s.io"}},
		{"xhpa.status.currentMetrics.object.metric.source", []string{"apiGroup"}},
	} {
		out := explain(t, cluster, tc.field)
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl explain %s does not mention %q:\n%s", tc.field, want, out)
			}
		}
	}
}

// explain runs kubectl explain field, waiting for the API server to publish
// the CRD's OpenAPI, which it does a little after the CRD is Established.
func explain(t *testing.T, cluster *localcluster.Cluster, field string) string {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	var out string
	err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(context.Context) (bool, error) {
		var err error
		out, err = cluster.Kubectl("explain", field)
		if err != nil {
			out = err.Error()
		}
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("kubectl explain %s: %v; last: %s", field, err, out)
	}
	return out
}

func loadAdmissionTable(t *testing.T) *webhookcases.Table {
	t.Helper()
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	table, err := webhookcases.Load(filepath.Join(root, filepath.FromSlash(webhookcases.RelativeDir)))
	if err != nil {
		t.Fatal(err)
	}
	return table
}

func findCase(table *webhookcases.Table, manifest string) (webhookcases.Case, bool) {
	for _, c := range table.Cases {
		if c.Manifest == manifest {
			return c, true
		}
	}
	return webhookcases.Case{}, false
}

// tableGate is the table's gate setting, with gate set to on when gate is
// not empty.
func tableGate(t *testing.T, table *webhookcases.Table, gate featuregate.Feature, on bool) featuregate.FeatureGate {
	t.Helper()
	g := features.NewFeatureGate()
	if err := g.SetFromMap(table.Gates); err != nil {
		t.Fatal(err)
	}
	if gate != "" {
		if err := g.SetFromMap(map[string]bool{string(gate): on}); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func readManifest(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	jsonData, err := yaml.YAMLToJSON(data)
	if err == nil {
		err = obj.UnmarshalJSON(jsonData)
	}
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return obj
}

func decodeManifest(t *testing.T, path string) *xhpav2.HorizontalPodAutoscaler {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hpa := &xhpav2.HorizontalPodAutoscaler{}
	if err := yaml.UnmarshalStrict(data, hpa); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return hpa
}

func readGeneratedCRD(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "deploy", "crd", "*.yaml"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want the one generated CRD in deploy/crd, got %v (%v)", files, err)
	}
	return readManifest(t, files[0])
}

// countRules counts the x-kubernetes-validations rules anywhere in obj.
func countRules(obj any) int {
	n := 0
	switch v := obj.(type) {
	case map[string]any:
		for key, child := range v {
			if rules, ok := child.([]any); ok && key == "x-kubernetes-validations" {
				n += len(rules)
				continue
			}
			n += countRules(child)
		}
	case []any:
		for _, child := range v {
			n += countRules(child)
		}
	}
	return n
}

func conditionIsTrue(obj *unstructured.Unstructured, conditionType string) bool {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == conditionType {
			return m["status"] == "True"
		}
	}
	return false
}

// causeFields lists the fields a validation error of the API server names.
func causeFields(err error) []string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []string
	for _, cause := range status.Status().Details.Causes {
		out = append(out, cause.Field)
	}
	return out
}

// assertNoWebhookFor fails the test when a validating webhook could answer
// for group: the point is what the schema does alone.
func assertNoWebhookFor(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, group string) {
	t.Helper()
	configs, err := kubernetes.NewForConfigOrDie(cluster.RESTConfig()).AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, config := range configs.Items {
		for _, hook := range config.Webhooks {
			for _, rule := range hook.Rules {
				if slices.Contains(rule.APIGroups, group) || slices.Contains(rule.APIGroups, "*") {
					t.Fatalf("webhook %s/%s answers for %s: this test needs the schema alone", config.Name, hook.Name, group)
				}
			}
		}
	}
}
