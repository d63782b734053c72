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
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"
)

// testNow is the time of the fake clock of every test.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testMapper knows the kinds the tests name: pods and nodes of the core
// group and deployments of apps.
func testMapper() meta.RESTMapper {
	core := schema.GroupVersion{Version: "v1"}
	apps := schema.GroupVersion{Group: "apps", Version: "v1"}
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{core, apps})
	m.Add(core.WithKind("Pod"), meta.RESTScopeNamespace)
	m.Add(core.WithKind("Node"), meta.RESTScopeRoot)
	m.Add(apps.WithKind("Deployment"), meta.RESTScopeNamespace)
	return m
}

// object is what listerOf knows of one object.
type object struct {
	resource, namespace, name string
	labels                    map[string]string
}

// staticLister is an ObjectLister over a fixed list of objects.
type staticLister []object

func (l staticLister) ListNames(_ context.Context, gr schema.GroupResource, namespace string, selector labels.Selector) ([]string, error) {
	var names []string
	for _, o := range l {
		if o.resource == gr.Resource && o.namespace == namespace && selector.Matches(labels.Set(o.labels)) {
			names = append(names, o.name)
		}
	}
	return names, nil
}

// webPods are two pods of app=web and one of app=db in namespace default.
func webPods() staticLister {
	return staticLister{
		{resource: "pods", namespace: "default", name: "web-1", labels: map[string]string{"app": "web"}},
		{resource: "pods", namespace: "default", name: "web-2", labels: map[string]string{"app": "web"}},
		{resource: "pods", namespace: "default", name: "db-1", labels: map[string]string{"app": "db"}},
	}
}

// newTestProvider serves data with the test mapper, webPods, a fake clock
// and a counter.
func newTestProvider(t *testing.T, data map[string]string) (*Provider, *FetchCounter) {
	t.Helper()
	counter := NewFetchCounter()
	p, err := New(Options{
		Source:  NewStaticSource(data),
		Mapper:  testMapper(),
		Lister:  webPods(),
		Clock:   testingclock.NewFakeClock(testNow),
		Counter: counter,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, counter
}

// testContext is a context with the test's logger and a deadline far
// enough for any fetch that does not hang.
func testContext(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancel)
	return ctx
}

func mustSelector(t *testing.T, s string) labels.Selector {
	t.Helper()
	sel, err := labels.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}
