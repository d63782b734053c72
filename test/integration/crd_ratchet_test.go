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
	"k8s.io/klog/v2/ktesting"

	xhpav2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/apis/autoscaling/validation"
)

// TestCRDRatchetsAFailureDurationStoredBeforeItsBound stores an HPA with a
// failureDurationSeconds above today's maximum under a CRD that had no
// maximum (a copy of ours in a group of its own, so the other tests keep
// theirs), then installs the bound: an update that leaves the metrics alone
// is accepted (the API server's ratcheting of unchanged fields), one that
// edits the metrics list must bring the value within the bound, since the
// list is atomic and its items are not compared one by one.
func TestCRDRatchetsAFailureDurationStoredBeforeItsBound(t *testing.T) {
	const group = "ratchet-duration.kube-hpa.test"
	env := newCRDCopy(t, group)
	bounded := env.crd
	unbounded := bounded.DeepCopy()
	delete(failureDurationSchema(t, unbounded), "maximum")
	if _, ok := failureDurationSchema(t, bounded)["maximum"]; !ok {
		t.Fatal("the generated CRD has no maximum for failureDurationSeconds")
	}
	ctx, hpas, apply := env.ctx, env.hpas, env.apply
	apply(unbounded)

	hpa := func(name string) *unstructured.Unstructured {
		obj := edgeCaseHPA(t, name, `metrics: [{type: External, external: {metric: {name: q}, target: {type: Value, value: "10"},
			fallback: {failureDurationSeconds: 10000000000, replicas: 3}}}]`)
		obj.SetAPIVersion(group + "/v2")
		return obj
	}
	// The new CRD is served a moment after the apply; retry until it is.
	var stored *unstructured.Unstructured
	until(ctx, t, "the CRD copy without a maximum stores the HPA", func() error {
		var err error
		stored, err = hpas.Create(ctx, hpa("stored-before-the-bound"), metav1.CreateOptions{})
		return err
	})

	apply(bounded)
	until(ctx, t, "the bound refuses a new HPA with the same value", func() error {
		_, err := hpas.Create(ctx, hpa("created-after-the-bound"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return errStillAccepted
		}
		return nil
	})

	keepMetrics := stored.DeepCopy()
	if err := unstructured.SetNestedField(keepMetrics.Object, int64(20), "spec", "maxReplicas"); err != nil {
		t.Fatal(err)
	}
	updated, err := hpas.Update(ctx, keepMetrics, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("an update leaving the metrics alone must keep the stored failureDurationSeconds: %v", err)
	}

	editMetrics := updated.DeepCopy()
	metrics, _, _ := unstructured.NestedSlice(editMetrics.Object, "spec", "metrics")
	if err := unstructured.SetNestedField(metrics[0].(map[string]any), "12", "external", "target", "value"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(editMetrics.Object, metrics, "spec", "metrics"); err != nil {
		t.Fatal(err)
	}
	_, err = hpas.Update(ctx, editMetrics, metav1.UpdateOptions{})
	const field = "spec.metrics[0].external.fallback.failureDurationSeconds"
	if err == nil || !slices.Contains(causeFields(err), field) {
		t.Fatalf("an update editing the metrics must be refused on %s, got %v", field, err)
	}
}

// TestCRDRatchetsAScaleTargetAPIVersionAsTheValidatorDoes stores an HPA
// whose scaleTargetRef names a Deployment without its API group under a
// copy of our CRD without the apiVersion rule, then installs the rule: like
// the Go validator, the API server keeps accepting updates that keep the
// target's kind and apiVersion (its CEL rule reads oldSelf), and refuses one
// that changes them to something still invalid.
func TestCRDRatchetsAScaleTargetAPIVersionAsTheValidatorDoes(t *testing.T) {
	const group = "ratchet-target.kube-hpa.test"
	env := newCRDCopy(t, group)
	ruled := env.crd
	unruled := ruled.DeepCopy()
	if !dropRulesReading(t, unruled, "oldSelf") {
		t.Fatal("the generated CRD has no rule reading oldSelf")
	}
	ctx, hpas, apply := env.ctx, env.hpas, env.apply
	apply(unruled)

	obj := edgeCaseHPA(t, "target-without-group", `scaleTargetRef: {apiVersion: v1, kind: Deployment, name: worker}`)
	obj.SetAPIVersion(group + "/v2")
	var stored *unstructured.Unstructured
	until(ctx, t, "the CRD copy without the rule stores the HPA", func() error {
		var err error
		stored, err = hpas.Create(ctx, obj, metav1.CreateOptions{})
		return err
	})
	apply(ruled)
	probe := edgeCaseHPA(t, "probe", `scaleTargetRef: {apiVersion: v1, kind: Deployment, name: worker}`)
	probe.SetAPIVersion(group + "/v2")
	until(ctx, t, "the rule refuses a new HPA with the same target", func() error {
		if _, err := hpas.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
			return errStillAccepted
		}
		return nil
	})

	gate := tableGate(t, loadAdmissionTable(t), "", false)
	for _, tc := range []struct {
		name   string
		target map[string]any
	}{
		{"keeping the target", map[string]any{"apiVersion": "v1", "kind": "Deployment", "name": "worker"}},
		{"renaming the target", map[string]any{"apiVersion": "v1", "kind": "Deployment", "name": "other"}},
		{"changing the kind", map[string]any{"apiVersion": "v1", "kind": "StatefulSet", "name": "worker"}},
		{"fixing the apiVersion", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "worker"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			updated := stored.DeepCopy()
			if err := unstructured.SetNestedMap(updated.Object, tc.target, "spec", "scaleTargetRef"); err != nil {
				t.Fatal(err)
			}
			goAccepts := len(validation.ValidateHorizontalPodAutoscalerUpdate(decodeHPA(t, updated), decodeHPA(t, stored), gate)) == 0
			_, err := hpas.Update(ctx, updated, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			if schemaAccepts := err == nil; schemaAccepts != goAccepts {
				t.Errorf("the Go validator accepts the update: %t, the schema: %t (%v)", goAccepts, schemaAccepts, err)
			}
		})
	}
}

// crdCopy is a copy of our CRD served in a group of its own, so that a test
// can change its schema while the other tests keep ours.
type crdCopy struct {
	ctx   context.Context
	crd   *unstructured.Unstructured
	hpas  dynamic.ResourceInterface
	apply func(*unstructured.Unstructured)
}

func newCRDCopy(t *testing.T, group string) crdCopy {
	t.Helper()
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	assertNoWebhookFor(ctx, t, cluster, xhpav2.GroupName)
	client := dynamic.NewForConfigOrDie(cluster.RESTConfig())
	crds := client.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})

	crd := readGeneratedCRD(t)
	crd.SetName(xhpav2.Resource + "." + group)
	if err := unstructured.SetNestedField(crd.Object, group, "spec", "group"); err != nil {
		t.Fatal(err)
	}
	// Without the short name and categories, so that kubectl's xhpa and
	// "all" keep meaning ours alone.
	unstructured.RemoveNestedField(crd.Object, "spec", "names", "shortNames")
	unstructured.RemoveNestedField(crd.Object, "spec", "names", "categories")
	t.Cleanup(func() {
		if err := crds.Delete(context.Background(), crd.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting the CRD copy: %v", err)
		}
	})
	return crdCopy{
		ctx:  ctx,
		crd:  crd,
		hpas: client.Resource(schema.GroupVersionResource{Group: group, Version: "v2", Resource: xhpav2.Resource}).Namespace(createNamespace(ctx, t, cluster)),
		apply: func(crd *unstructured.Unstructured) {
			t.Helper()
			if _, err := crds.Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: "crd-ratchet-test", Force: true}); err != nil {
				t.Fatalf("applying the CRD copy: %v", err)
			}
		},
	}
}

// dropRulesReading removes, anywhere in obj, the x-kubernetes-validations
// rules whose expression contains word, and reports whether it removed one.
func dropRulesReading(t *testing.T, obj *unstructured.Unstructured, word string) bool {
	t.Helper()
	var walk func(node any) bool
	walk = func(node any) bool {
		dropped := false
		switch v := node.(type) {
		case map[string]any:
			if rules, ok := v["x-kubernetes-validations"].([]any); ok {
				kept := slices.DeleteFunc(slices.Clone(rules), func(r any) bool {
					rule, _ := r.(map[string]any)["rule"].(string)
					return strings.Contains(rule, word)
				})
				dropped = len(kept) < len(rules)
				v["x-kubernetes-validations"] = kept
			}
			for key, child := range v {
				if key != "x-kubernetes-validations" && walk(child) {
					dropped = true
				}
			}
		case []any:
			for _, child := range v {
				if walk(child) {
					dropped = true
				}
			}
		}
		return dropped
	}
	return walk(obj.Object)
}

var errStillAccepted = apierrors.NewBadRequest("still accepted")

// until retries f for up to a minute, until it returns nil.
func until(ctx context.Context, t *testing.T, what string, f func() error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		last = f()
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("waiting until %s: %v; last: %v", what, err, last)
	}
}

// failureDurationSchema is the schema of failureDurationSeconds in crd,
// which a change to the map changes.
func failureDurationSchema(t *testing.T, crd *unstructured.Unstructured) map[string]any {
	t.Helper()
	versions, ok := crd.Object["spec"].(map[string]any)["versions"].([]any)
	if !ok || len(versions) != 1 {
		t.Fatalf("want one version in the CRD, got %v", crd.Object["spec"])
	}
	node := versions[0].(map[string]any)
	for _, key := range []string{"schema", "openAPIV3Schema", "properties", "spec", "properties", "metrics", "items",
		"properties", "external", "properties", "fallback", "properties", "failureDurationSeconds"} {
		next, ok := node[key].(map[string]any)
		if !ok {
			t.Fatalf("no %q on the way to failureDurationSeconds in the CRD", key)
		}
		node = next
	}
	return node
}

// TestCRDKeepsAStoredDeprecatedSyncPeriod stores an HPA with
// behavior.syncPeriodSeconds, where KEP-6003 first put the field, under a
// copy of our CRD without the rule that retires it, as an HPA stored before
// the move was; then installs the rule. The stored HPA keeps the field
// through updates that leave it unchanged, and the schema refuses, as the
// Go validator does, a change of it or the field beside
// spec.syncPeriodSeconds, naming the field that replaces it; moving the
// value to spec.syncPeriodSeconds is accepted.
func TestCRDKeepsAStoredDeprecatedSyncPeriod(t *testing.T) {
	const group = "deprecated-sync-period.kube-hpa.test"
	const retiring = "oldSelf.value() == self"
	env := newCRDCopy(t, group)
	ruled := env.crd
	unruled := ruled.DeepCopy()
	if !dropRulesReading(t, unruled, retiring) {
		t.Fatal("the generated CRD has no rule retiring behavior.syncPeriodSeconds")
	}
	ctx, hpas, apply := env.ctx, env.hpas, env.apply
	apply(unruled)

	hpa := func(name string) *unstructured.Unstructured {
		obj := edgeCaseHPA(t, name, `behavior: {syncPeriodSeconds: 2}`)
		obj.SetAPIVersion(group + "/v2")
		return obj
	}
	var stored *unstructured.Unstructured
	until(ctx, t, "the CRD copy without the rule stores the HPA", func() error {
		var err error
		stored, err = hpas.Create(ctx, hpa("stored-before-the-move"), metav1.CreateOptions{})
		return err
	})
	apply(ruled)
	until(ctx, t, "the rule refuses a new HPA with the old field", func() error {
		if _, err := hpas.Create(ctx, hpa("created-after-the-move"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
			return errStillAccepted
		}
		return nil
	})

	gate := tableGate(t, loadAdmissionTable(t), "", false)
	const oldField = "spec.behavior.syncPeriodSeconds"
	for _, tc := range []struct {
		name   string
		edit   func(spec map[string]any)
		accept bool
	}{
		{name: "keeping the old field through an update of another", accept: true,
			edit: func(spec map[string]any) { spec["maxReplicas"] = int64(20) }},
		{name: "changing the old field",
			edit: func(spec map[string]any) { spec["behavior"].(map[string]any)["syncPeriodSeconds"] = int64(3) }},
		{name: "adding spec.syncPeriodSeconds beside the old field",
			edit: func(spec map[string]any) { spec["syncPeriodSeconds"] = int64(30) }},
		{name: "moving the value to spec.syncPeriodSeconds", accept: true,
			edit: func(spec map[string]any) {
				delete(spec["behavior"].(map[string]any), "syncPeriodSeconds")
				spec["syncPeriodSeconds"] = int64(5)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			updated := stored.DeepCopy()
			tc.edit(updated.Object["spec"].(map[string]any))
			goErrs := validation.ValidateHorizontalPodAutoscalerUpdate(decodeHPA(t, updated), decodeHPA(t, stored), gate)
			_, err := hpas.Update(ctx, updated, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			switch {
			case (err == nil) != tc.accept || (len(goErrs) == 0) != tc.accept:
				t.Fatalf("want accepted %t; the schema says %v, the Go validator %v", tc.accept, err, goErrs)
			case tc.accept:
			case !slices.Contains(causeFields(err), oldField) || !strings.Contains(err.Error(), "spec.syncPeriodSeconds"):
				t.Errorf("the refusal must be on %s and name spec.syncPeriodSeconds: %v", oldField, err)
			}
		})
	}
}
