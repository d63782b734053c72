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
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2/ktesting"
	"sigs.k8s.io/yaml"

	xhpav2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/apis/autoscaling/validation"
)

// schemaOnlyBounds are the edge cases where the CRD schema is stricter than
// the Go validator on purpose, each with why.
var schemaOnlyBounds = map[string]string{
	"eleven metrics": "the CRD caps metrics at 10 so that the API server can bound the cost of its CEL rules; " +
		"the Go validator, shared with native HPAs, keeps upstream's no-limit",
}

// TestCRDSchemaAgreesWithTheValidatorBeyondTheTable sends the corners of
// the rules the schema repeats (quantities written as integers or as a
// signed zero, apiVersions, names, bounds) through the real API server
// without a webhook, and requires the schema's answer to be the Go
// validator's under the table's gates, except for schemaOnlyBounds.
func TestCRDSchemaAgreesWithTheValidatorBeyondTheTable(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	assertNoWebhookFor(ctx, t, cluster, xhpav2.GroupName)
	table := loadAdmissionTable(t)
	gate := tableGate(t, table, "", false)
	ns := createNamespace(ctx, t, cluster)
	hpas := dynamic.NewForConfigOrDie(cluster.RESTConfig()).Resource(xhpav2.SchemeGroupVersion.WithResource(xhpav2.Resource)).Namespace(ns)

	const (
		queue = `{type: External, external: {metric: {name: q}, target: {type: AverageValue, averageValue: "30"}}}`
		cpu   = `{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}`
	)
	external := func(target string) string {
		return `metrics: [{type: External, external: {metric: {name: q}, target: ` + target + `}}]`
	}
	container := func(name, container string) string {
		return fmt.Sprintf(`metrics: [{type: ContainerResource, containerResource: {name: %q, container: %q, target: {type: Utilization, averageUtilization: 50}}}]`, name, container)
	}
	object := func(describedObject string) string {
		return `metrics: [{type: Object, object: {describedObject: ` + describedObject + `, metric: {name: rps}, target: {type: Value, value: "10"}}}]`
	}
	source := func(group string) string {
		return `metrics: [{type: External, external: {metric: {name: q, source: {apiGroup: "` + group + `"}}, target: {type: AverageValue, averageValue: "30"}}}]`
	}
	scaleUp := func(rules string) string { return `behavior: {scaleUp: ` + rules + `}` }
	repeat := func(n int, metric string) string {
		return "metrics: [" + strings.TrimSuffix(strings.Repeat(metric+",", n), ",") + "]"
	}

	cases := []struct{ name, patch string }{
		{"an integer target value", external(`{type: Value, value: 100}`)},
		{"an integer target value of 0", external(`{type: Value, value: 0}`)},
		{"a target value written 0.0", external(`{type: Value, value: "0.0"}`)},
		{"a target averageValue of 0m", external(`{type: AverageValue, averageValue: "0m"}`)},
		{"a target averageValue of -0", external(`{type: AverageValue, averageValue: "-0"}`)},
		{"a target averageValue of 1m", external(`{type: AverageValue, averageValue: "1m"}`)},
		{"a target averageValue of -1Ki", external(`{type: AverageValue, averageValue: "-1Ki"}`)},
		{"a target whose type names another field than the one set", external(`{type: Utilization, averageValue: "5"}`)},
		{"a target without a type", external(`{averageValue: "5"}`)},
		{"a Pods metric with a Value-typed target carrying averageValue", `metrics: [{type: Pods, pods: {metric: {name: rps}, target: {type: Value, averageValue: "5"}}}]`},
		{"a tolerance of 0", scaleUp(`{tolerance: "0"}`)},
		{"an integer tolerance", scaleUp(`{tolerance: 1}`)},
		{"a tolerance of -0.0", scaleUp(`{tolerance: "-0.0"}`)},
		{"a stabilization window of -1", scaleUp(`{stabilizationWindowSeconds: -1}`)},
		{"a stabilization window of 3600", scaleUp(`{stabilizationWindowSeconds: 3600}`)},
		{"selectPolicy Disabled", scaleUp(`{selectPolicy: Disabled}`)},
		{"a policy period of 0", scaleUp(`{policies: [{type: Percent, value: 10, periodSeconds: 0}]}`)},
		{"a policy period of 1800", scaleUp(`{policies: [{type: Percent, value: 10, periodSeconds: 1800}]}`)},
		{"a target apiVersion with three parts", `scaleTargetRef: {apiVersion: apps/v1/beta, kind: Deployment, name: worker}`},
		{"a target apiVersion with an empty group", `scaleTargetRef: {apiVersion: /v1, kind: Deployment, name: worker}`},
		{"a Deployment target without apiVersion", `scaleTargetRef: {kind: Deployment, name: worker}`},
		{"a ReplicationController target without apiVersion", `scaleTargetRef: {kind: ReplicationController, name: worker}`},
		{"a ReplicationController target with a three-part apiVersion", `scaleTargetRef: {apiVersion: a/b/c, kind: ReplicationController, name: worker}`},
		{"a target named ..", `scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: ".."}`},
		{"a target kind with a percent sign", `scaleTargetRef: {apiVersion: apps/v1, kind: "Deploy%ment", name: worker}`},
		{"a metric named .", `metrics: [{type: External, external: {metric: {name: "."}, target: {type: Value, value: "1"}}}]`},
		{"a Pods metric named with a percent sign", `metrics: [{type: Pods, pods: {metric: {name: "a%b"}, target: {type: AverageValue, averageValue: "1"}}}]`},
		{"an Object metric whose describedObject has no apiVersion", object(`{kind: Service, name: front}`)},
		{"an Object metric whose describedObject has a version only", object(`{apiVersion: v1, kind: Service, name: front}`)},
		{"an Object metric whose describedObject kind is empty", object(`{apiVersion: v1, kind: "", name: front}`)},
		{"a container name ending in a dash", container("cpu", "app-")},
		{"a container name starting with a dash", container("cpu", "-app")},
		{"a container name of 63 characters", container("cpu", strings.Repeat("a", 63))},
		{"a container name of 64 characters", container("cpu", strings.Repeat("a", 64))},
		{"a container resource requests.cpu", container("requests.cpu", "app")},
		{"a container resource of huge pages", container("hugepages-2Mi", "app")},
		{"a container resource of an extended resource", container("example.com/gpu", "app")},
		{"a container resource in the kubernetes.io namespace", container("kubernetes.io/foo", "app")},
		{"a Resource metric without a name", `metrics: [{type: Resource, resource: {name: "", target: {type: Utilization, averageUtilization: 50}}}]`},
		{"a Resource metric with both a utilization and an averageValue", `metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50, averageValue: "1"}}}]`},
		{"an Object metric without a target quantity", `metrics: [{type: Object, object: {describedObject: {kind: Service, name: front}, metric: {name: rps}, target: {type: Value}}}]`},
		{"maxReplicas 0", `maxReplicas: 0`},
		{"minReplicas equal to maxReplicas", "minReplicas: 10\nmaxReplicas: 10"},
		{"minReplicas 0 with an explicitly empty metrics list", "minReplicas: 0\nmetrics: []"},
		{"minReplicas 0 with CPU and an External metric", "minReplicas: 0\nmetrics: [" + cpu + "," + queue + "]"},
		{"ten metrics", repeat(10, queue)},
		{"eleven metrics", repeat(11, queue)},
		{"a source group of 253 characters", source(strings.Repeat("a.", 125) + "abc")},
		{"a source group of 254 characters", source(strings.Repeat("a.", 126) + "ab")},
		{"a single-label source group", source("adapter")},
		{"a source group ending in a dot", source("example.com.")},
		{"a source group with a label starting with a dash", source("-a.example.com")},
		{"the resource metrics group as a source", source("metrics.k8s.io")},
		{"ten metrics with a source each", repeat(10, `{type: External, external: {metric: {name: q, source: {apiGroup: `+strings.Repeat("a.", 125)+`abc}}, target: {type: AverageValue, averageValue: "30"}}}`)},
	}

	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := edgeCaseHPA(t, fmt.Sprintf("edge-%d", i), tc.patch)
			goAccepts := len(validation.ValidateHorizontalPodAutoscaler(decodeHPA(t, obj), gate)) == 0
			_, err := hpas.Create(ctx, obj, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
			schemaAccepts := err == nil
			if why, ok := schemaOnlyBounds[tc.name]; ok {
				if !goAccepts || schemaAccepts {
					t.Fatalf("want the Go validator to accept (%t) and the schema to refuse (%t): %s; schema: %v", goAccepts, !schemaAccepts, why, err)
				}
				return
			}
			if schemaAccepts != goAccepts {
				t.Errorf("the Go validator accepts: %t, the schema accepts: %t (%v)", goAccepts, schemaAccepts, err)
			}
		})
	}
}

// edgeCaseHPA is a valid HPA whose spec keys are replaced by those of
// patch, a YAML map.
func edgeCaseHPA(t *testing.T, name, patch string) *unstructured.Unstructured {
	t.Helper()
	spec := map[string]any{}
	base := `{scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}, maxReplicas: 10,
		metrics: [{type: External, external: {metric: {name: q}, target: {type: AverageValue, averageValue: "30"}}}]}`
	overrides := map[string]any{}
	for _, doc := range []struct {
		src string
		to  map[string]any
	}{{base, spec}, {patch, overrides}} {
		data, err := yaml.YAMLToJSON([]byte(doc.src))
		if err == nil {
			err = json.Unmarshal(data, &doc.to)
		}
		if err != nil {
			t.Fatalf("the case's YAML: %v", err)
		}
	}
	for k, v := range overrides {
		spec[k] = v
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	obj.SetAPIVersion(xhpav2.SchemeGroupVersion.String())
	obj.SetKind("HorizontalPodAutoscaler")
	obj.SetName(name)
	// Through JSON, so that numbers are the int64 the API server sees.
	data, err := obj.MarshalJSON()
	if err == nil {
		err = obj.UnmarshalJSON(data)
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func decodeHPA(t *testing.T, obj *unstructured.Unstructured) *xhpav2.HorizontalPodAutoscaler {
	t.Helper()
	data, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	hpa := &xhpav2.HorizontalPodAutoscaler{}
	if err := yaml.UnmarshalStrict(data, hpa); err != nil {
		t.Fatalf("decoding the case: %v", err)
	}
	return hpa
}
