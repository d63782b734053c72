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

package adapter

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

var (
	deploymentsApps = schema.GroupResource{Group: "apps", Resource: "deployments"}
	pods            = schema.GroupResource{Resource: "pods"}
)

func TestGetCustomMetricByName(t *testing.T) {
	objectKey := "custom.object.Deployment.web.queue_length"
	tests := []struct {
		name     string
		data     map[string]string
		resource schema.GroupResource
		object   string
		metric   string
		// wantValue is the value answered; wantKind and wantAPIVersion
		// its described object.
		wantValue, wantKind, wantAPIVersion string
		wantCode                            int32
		wantMessage                         string
	}{
		{
			name:     "an object key answers its value with the kind of the object",
			data:     map[string]string{objectKey: "42"},
			resource: deploymentsApps, object: "web", metric: "queue_length",
			wantValue: "42", wantKind: "Deployment", wantAPIVersion: "apps/v1",
		},
		{
			name:     "the key may name the plural resource in any case",
			data:     map[string]string{"custom.object.DEPLOYMENTS.web.queue_length": "42"},
			resource: deploymentsApps, object: "web", metric: "queue_length",
			wantValue: "42", wantKind: "Deployment", wantAPIVersion: "apps/v1",
		},
		{
			name:     "a request without the group finds the key",
			data:     map[string]string{objectKey: "42"},
			resource: schema.GroupResource{Resource: "deployments"}, object: "web", metric: "queue_length",
			wantValue: "42", wantKind: "Deployment", wantAPIVersion: "apps/v1",
		},
		{
			name:     "object names may hold dots",
			data:     map[string]string{"custom.object.deployment.web.v2.queue_length": "7"},
			resource: deploymentsApps, object: "web.v2", metric: "queue_length",
			wantValue: "7", wantKind: "Deployment", wantAPIVersion: "apps/v1",
		},
		{
			name:     "a pod takes the value of custom.pods",
			data:     map[string]string{"custom.pods.rps": "10"},
			resource: pods, object: "web-1", metric: "rps",
			wantValue: "10", wantKind: "Pod", wantAPIVersion: "v1",
		},
		{
			name:     "a pod's override wins over the value of every pod",
			data:     map[string]string{"custom.pods.rps": `{"value": "10", "pods": {"web-1": "25"}}`},
			resource: pods, object: "web-1", metric: "rps",
			wantValue: "25", wantKind: "Pod", wantAPIVersion: "v1",
		},
		{
			name:     "another object is NotFound",
			data:     map[string]string{objectKey: "42"},
			resource: deploymentsApps, object: "api", metric: "queue_length",
			wantCode: http.StatusNotFound, wantMessage: "queue_length",
		},
		{
			name:     "another kind is NotFound",
			data:     map[string]string{objectKey: "42"},
			resource: pods, object: "web", metric: "queue_length",
			wantCode: http.StatusNotFound,
		},
		{
			name:     "an unknown metric is NotFound",
			data:     map[string]string{objectKey: "42"},
			resource: deploymentsApps, object: "web", metric: "queue_depth",
			wantCode: http.StatusNotFound,
		},
		{
			name:     "the error fault answers its errorCode",
			data:     map[string]string{objectKey: `{"value": "42", "fault": "error", "errorCode": 503}`},
			resource: deploymentsApps, object: "web", metric: "queue_length",
			wantCode: http.StatusServiceUnavailable, wantMessage: "injected for custom metric queue_length",
		},
		{
			name:     "the empty fault answers NotFound for a single object",
			data:     map[string]string{objectKey: "empty"},
			resource: deploymentsApps, object: "web", metric: "queue_length",
			wantCode: http.StatusNotFound,
		},
		{
			name:     "fault.custom takes every custom metric out",
			data:     map[string]string{objectKey: "42", "fault.custom": "error"},
			resource: deploymentsApps, object: "web", metric: "queue_length",
			wantCode: http.StatusInternalServerError,
		},
		{
			name:     "labels are refused on a custom metric",
			data:     map[string]string{objectKey: `{"value": "42", "labels": {"a": "b"}}`},
			resource: deploymentsApps, object: "web", metric: "queue_length",
			wantCode: http.StatusInternalServerError, wantMessage: "labels are only for external metrics",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProvider(t, tc.data)
			info := provider.CustomMetricInfo{GroupResource: tc.resource, Namespaced: true, Metric: tc.metric}
			name := types.NamespacedName{Namespace: "default", Name: tc.object}
			v, err := p.GetMetricByName(testContext(t, 10*time.Second), name, info, labels.Everything())
			if tc.wantCode != 0 {
				checkStatus(t, err, tc.wantCode, tc.wantMessage)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if v.Value.String() != tc.wantValue {
				t.Errorf("value %s, want %s", v.Value.String(), tc.wantValue)
			}
			ref := v.DescribedObject
			if ref.Kind != tc.wantKind || ref.APIVersion != tc.wantAPIVersion || ref.Name != tc.object || ref.Namespace != "default" {
				t.Errorf("described object %+v, want %s %s default/%s", ref, tc.wantAPIVersion, tc.wantKind, tc.object)
			}
			if v.Metric.Name != tc.metric {
				t.Errorf("metric %q, want %q", v.Metric.Name, tc.metric)
			}
			if !v.Timestamp.Time.Equal(testNow) {
				t.Errorf("timestamp %v, want the clock's %v", v.Timestamp, testNow)
			}
		})
	}
}

func TestGetCustomMetricBySelector(t *testing.T) {
	tests := []struct {
		name     string
		data     map[string]string
		resource schema.GroupResource
		selector string
		metric   string
		// want maps object names to values.
		want        map[string]string
		wantCode    int32
		wantMessage string
	}{
		{
			name:     "every pod the selector picks has the value",
			data:     map[string]string{"custom.pods.rps": "10"},
			resource: pods, selector: "app=web", metric: "rps",
			want: map[string]string{"web-1": "10", "web-2": "10"},
		},
		{
			name:     "per-pod overrides",
			data:     map[string]string{"custom.pods.rps": `{"value": "10", "pods": {"web-2": "30", "db-1": "99"}}`},
			resource: pods, selector: "app=web", metric: "rps",
			want: map[string]string{"web-1": "10", "web-2": "30"},
		},
		{
			name:     "pods without a value for every pod answer only the overridden ones",
			data:     map[string]string{"custom.pods.rps": `{"pods": {"web-2": "30"}}`},
			resource: pods, selector: "app=web", metric: "rps",
			want: map[string]string{"web-2": "30"},
		},
		{
			name:     "object keys of single pods count too",
			data:     map[string]string{"custom.object.pod.web-1.rps": "3"},
			resource: pods, selector: "app", metric: "rps",
			want: map[string]string{"web-1": "3"},
		},
		{
			name:     "a selector that picks no pod answers an empty list",
			data:     map[string]string{"custom.pods.rps": "10"},
			resource: pods, selector: "app=cache", metric: "rps",
			want: map[string]string{},
		},
		{
			name:     "an unknown metric is NotFound",
			data:     map[string]string{"custom.pods.rps": "10"},
			resource: pods, selector: "app=web", metric: "latency",
			wantCode: http.StatusNotFound,
		},
		{
			name:     "the pods key of another resource is NotFound",
			data:     map[string]string{"custom.pods.rps": "10"},
			resource: deploymentsApps, selector: "app=web", metric: "rps",
			wantCode: http.StatusNotFound,
		},
		{
			name:     "the error fault fails the whole list",
			data:     map[string]string{"custom.pods.rps": `{"value": "10", "fault": "error"}`},
			resource: pods, selector: "app=web", metric: "rps",
			wantCode: http.StatusInternalServerError, wantMessage: "injected",
		},
		{
			name:     "the empty fault answers an empty list",
			data:     map[string]string{"custom.pods.rps": `{"value": "10", "fault": "empty"}`},
			resource: pods, selector: "app=web", metric: "rps",
			want: map[string]string{},
		},
		{
			name: "the empty fault of one object drops that object",
			data: map[string]string{
				"custom.pods.rps":             "10",
				"custom.object.pod.web-1.rps": "empty",
			},
			resource: pods, selector: "app=web", metric: "rps",
			want: map[string]string{"web-2": "10"},
		},
		{
			name:     "fault.custom empty answers an empty list",
			data:     map[string]string{"custom.pods.rps": "10", "fault.custom": "empty"},
			resource: pods, selector: "app=web", metric: "rps",
			want: map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProvider(t, tc.data)
			info := provider.CustomMetricInfo{GroupResource: tc.resource, Namespaced: true, Metric: tc.metric}
			list, err := p.GetMetricBySelector(testContext(t, 10*time.Second), "default", mustSelector(t, tc.selector), info, labels.Everything())
			if tc.wantCode != 0 {
				checkStatus(t, err, tc.wantCode, tc.wantMessage)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			got := map[string]string{}
			for _, item := range list.Items {
				got[item.DescribedObject.Name] = item.Value.String()
				if item.DescribedObject.Kind != "Pod" || item.DescribedObject.Namespace != "default" {
					t.Errorf("described object %+v, want a Pod in default", item.DescribedObject)
				}
			}
			if !labels.Equals(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSelectorQueryWithoutListerFails(t *testing.T) {
	p, err := New(Options{Source: NewStaticSource(map[string]string{"custom.pods.rps": "10"})})
	if err != nil {
		t.Fatal(err)
	}
	info := provider.CustomMetricInfo{GroupResource: pods, Namespaced: true, Metric: "rps"}
	_, err = p.GetMetricBySelector(testContext(t, 10*time.Second), "default", labels.Everything(), info, labels.Everything())
	checkStatus(t, err, http.StatusInternalServerError, "no object lister")
}

func TestListAllMetrics(t *testing.T) {
	p, _ := newTestProvider(t, map[string]string{
		"custom.object.Deployment.web.queue_length":  "1",
		"custom.object.deployments.api.queue_length": "2",
		"custom.object.node.n1.temperature":          "3",
		"custom.pods.rps":                            "4",
		"external.queue_depth":                       "5",
		"external.backlog":                           "6",
	})
	got := p.ListAllMetrics()
	want := []provider.CustomMetricInfo{
		{GroupResource: deploymentsApps, Namespaced: true, Metric: "queue_length"},
		{GroupResource: schema.GroupResource{Resource: "nodes"}, Namespaced: false, Metric: "temperature"},
		{GroupResource: pods, Namespaced: true, Metric: "rps"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("metric %d: got %v, want %v", i, got[i], want[i])
		}
	}
	external := p.ListAllExternalMetrics()
	if len(external) != 2 || external[0].Metric != "backlog" || external[1].Metric != "queue_depth" {
		t.Errorf("external metrics %v, want backlog and queue_depth", external)
	}
}
