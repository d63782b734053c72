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

package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	customapi "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	externalapi "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"
)

// sourceServer stands in for a kube-apiserver that aggregates the default
// metrics APIs and two sources: adapter-a.example.com serves custom
// metrics at v1beta2 and external metrics; adapter-b.example.com serves
// custom metrics at v1beta1 only, with the same metric names and other
// values, so that a fetch sent to the wrong place shows in its value.
type sourceServer struct {
	*httptest.Server
	mu     sync.Mutex
	paths  []string
	accept map[string]string
}

func newSourceServer(t *testing.T) *sourceServer {
	s := &sourceServer{accept: map[string]string{}}
	customList := func(version string, milli int64) customapi.MetricValueList {
		return customapi.MetricValueList{
			TypeMeta: metav1.TypeMeta{Kind: "MetricValueList", APIVersion: "custom.metrics.k8s.io/" + version},
			Items:    []customapi.MetricValue{metricValue("Pod", "web-0", t0, milli, nil)},
		}
	}
	externalList := func(milli int64) externalapi.ExternalMetricValueList {
		return externalapi.ExternalMetricValueList{
			TypeMeta: metav1.TypeMeta{Kind: "ExternalMetricValueList", APIVersion: "external.metrics.k8s.io/v1beta1"},
			Items:    []externalapi.ExternalMetricValue{externalValue(t0, milli)},
		}
	}
	ns := "/namespaces/" + testNamespace
	a, b := "/apis/adapter-a.example.com", "/apis/adapter-b.example.com"
	routes := map[string]any{
		"/apis": metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{
			group("custom.metrics.k8s.io", "v1beta2"), group("external.metrics.k8s.io", "v1beta1"),
			group("adapter-a.example.com", "v1beta2", "v1beta1"), group("adapter-b.example.com", "v1beta1"),
		}},
		"/apis/custom.metrics.k8s.io/v1beta2" + ns + "/pods/*/qps":    customList("v1beta2", 1000),
		"/apis/external.metrics.k8s.io/v1beta1" + ns + "/queue_depth": externalList(1000),
		a:                                   withKind(group("adapter-a.example.com", "v1beta2", "v1beta1"), "APIGroup"),
		a + "/v1beta2" + ns + "/pods/*/qps": customList("v1beta2", 2000),
		a + "/v1beta2" + ns + "/deployments.apps/web/qps": customList("v1beta2", 2500),
		a + "/v1beta1" + ns + "/queue_depth":              externalList(2000),
		a + "/v1beta1" + ns + "/custom_shaped":            customList("v1beta2", 9000),
		b:                                                 withKind(group("adapter-b.example.com", "v1beta1"), "APIGroup"),
		b + "/v1beta1" + ns + "/pods/*/qps":               customList("v1beta1", 3000),
		"/apis/own-group.example.com":                     withKind(group("own-group.example.com", "v1beta2"), "APIGroup"),
		"/apis/own-group.example.com/v1beta2" + ns + "/pods/*/qps":        ownGroupList(),
		"/apis/future.example.com":                                        withKind(group("future.example.com", "v2"), "APIGroup"),
		"/apis/forbidden.example.com":                                     withKind(group("forbidden.example.com", "v1beta2"), "APIGroup"),
		"/apis/forbidden.example.com/v1beta1" + ns + "/queue_depth":       forbidden("forbidden.example.com"),
		"/apis/forbidden.example.com/v1beta2" + ns + "/pods/*/qps":        forbidden("forbidden.example.com"),
		"/apis/untyped.example.com/v1beta1" + ns + "/queue_depth":         map[string]any{"items": []any{}},
		"/apis/adapter-a.example.com/v1beta1" + ns + "/queue_depth_empty": externalapi.ExternalMetricValueList{TypeMeta: externalList(0).TypeMeta},
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.accept[r.URL.Path] = r.Header.Get("Accept")
		s.mu.Unlock()
		body, found := routes[r.URL.Path]
		if !found {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if status, ok := body.(metav1.Status); ok {
			w.WriteHeader(int(status.Code))
		}
		if err := json.NewEncoder(w).Encode(body); err != nil {
			t.Errorf("encoding %s: %v", r.URL.Path, err)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func withKind(g metav1.APIGroup, kind string) metav1.APIGroup {
	g.TypeMeta = metav1.TypeMeta{Kind: kind, APIVersion: "v1"}
	return g
}

// ownGroupList is a custom metrics list whose apiVersion names the
// source's group instead of custom.metrics.k8s.io: the wrong wire format.
func ownGroupList() map[string]any {
	return map[string]any{"kind": "MetricValueList", "apiVersion": "own-group.example.com/v1beta2", "items": []any{}}
}

func forbidden(group string) metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: http.StatusForbidden,
		Reason:  metav1.StatusReasonForbidden,
		Message: fmt.Sprintf(`queue_depth is forbidden: User "system:serviceaccount:kube-system:kube-hpa" cannot list resource "queue_depth" in API group %q`, group),
	}
}

func (s *sourceServer) requested(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.paths {
		if p == path {
			return true
		}
	}
	return false
}

func newSourceClient(t *testing.T, s *sourceServer) *RESTClient {
	t.Helper()
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}, {Group: "apps", Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	c, err := NewRESTClient(Options{Config: &rest.Config{Host: s.URL}, RESTMapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFetchRoutesToTheSourceGroup pins KEP-6382's routing: an empty group
// is the default API, any other group is fetched from that group's URL in
// the default API's wire format, at the custom metrics version the group
// prefers among those the decoder knows.
func TestFetchRoutesToTheSourceGroup(t *testing.T) {
	ns := "/namespaces/" + testNamespace
	deployment := &autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"}
	cases := []struct {
		name     string
		fetch    func(c *RESTClient) (int64, error)
		want     int64
		wantPath string
	}{{
		name: "a Pods metric without a source is read from custom.metrics.k8s.io",
		fetch: func(c *RESTClient) (int64, error) {
			info, _, err := c.GetRawMetric(context.Background(), "qps", testNamespace, labels.Everything(), labels.Everything(), "")
			return info["web-0"].Value, err
		},
		want: 1000, wantPath: "/apis/custom.metrics.k8s.io/v1beta2" + ns + "/pods/*/qps",
	}, {
		name: "a Pods metric with a source is read from its group at the preferred version",
		fetch: func(c *RESTClient) (int64, error) {
			info, _, err := c.GetRawMetric(context.Background(), "qps", testNamespace, labels.Everything(), labels.Everything(), "adapter-a.example.com")
			return info["web-0"].Value, err
		},
		want: 2000, wantPath: "/apis/adapter-a.example.com/v1beta2" + ns + "/pods/*/qps",
	}, {
		name: "a group that serves only v1beta1 is read at v1beta1",
		fetch: func(c *RESTClient) (int64, error) {
			info, _, err := c.GetRawMetric(context.Background(), "qps", testNamespace, labels.Everything(), labels.Everything(), "adapter-b.example.com")
			return info["web-0"].Value, err
		},
		want: 3000, wantPath: "/apis/adapter-b.example.com/v1beta1" + ns + "/pods/*/qps",
	}, {
		name: "an Object metric with a source is read from its group",
		fetch: func(c *RESTClient) (int64, error) {
			v, _, err := c.GetObjectMetric(context.Background(), "qps", testNamespace, deployment, labels.Everything(), "adapter-a.example.com")
			return v, err
		},
		want: 2500, wantPath: "/apis/adapter-a.example.com/v1beta2" + ns + "/deployments.apps/web/qps",
	}, {
		name: "an External metric without a source is read from external.metrics.k8s.io",
		fetch: func(c *RESTClient) (int64, error) {
			v, _, err := c.GetExternalMetric(context.Background(), "queue_depth", testNamespace, labels.Everything(), "")
			return sum(v), err
		},
		want: 1000, wantPath: "/apis/external.metrics.k8s.io/v1beta1" + ns + "/queue_depth",
	}, {
		name: "an External metric with a source is read from its group at v1beta1",
		fetch: func(c *RESTClient) (int64, error) {
			v, _, err := c.GetExternalMetric(context.Background(), "queue_depth", testNamespace, labels.Everything(), "adapter-a.example.com")
			return sum(v), err
		},
		want: 2000, wantPath: "/apis/adapter-a.example.com/v1beta1" + ns + "/queue_depth",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSourceServer(t)
			got, err := tc.fetch(newSourceClient(t, s))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("value = %d, want %d", got, tc.want)
			}
			if !s.requested(tc.wantPath) {
				t.Errorf("%s was not requested; requests: %v", tc.wantPath, s.paths)
			}
		})
	}
}

func sum(values []int64) int64 {
	var total int64
	for _, v := range values {
		total += v
	}
	return total
}

// TestSourceFailuresNameTheGroup pins that every way a source can fail
// gives an error that names its API group, so that the condition and
// event built from it tell the operator which provider to look at, and
// that a body in another format is refused, not read as values.
func TestSourceFailuresNameTheGroup(t *testing.T) {
	cases := []struct {
		name  string
		fetch func(c *RESTClient) error
		want  []string
	}{{
		name: "a group no APIService serves",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetRawMetric(context.Background(), "qps", testNamespace, labels.Everything(), labels.Everything(), "missing.example.com")
			return err
		},
		want: []string{`custom metrics API of API group "missing.example.com"`, `discovering API group "missing.example.com"`},
	}, {
		name: "an External metric of a group no APIService serves",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetExternalMetric(context.Background(), "queue_depth", testNamespace, labels.Everything(), "missing.example.com")
			return err
		},
		want: []string{`external metrics API of API group "missing.example.com"`, "could not find the requested resource"},
	}, {
		name: "a 403 of an External metric",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetExternalMetric(context.Background(), "queue_depth", testNamespace, labels.Everything(), "forbidden.example.com")
			return err
		},
		want: []string{`external metrics API of API group "forbidden.example.com"`, `cannot list resource "queue_depth" in API group "forbidden.example.com"`},
	}, {
		name: "a 403 of a Pods metric",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetRawMetric(context.Background(), "qps", testNamespace, labels.Everything(), labels.Everything(), "forbidden.example.com")
			return err
		},
		want: []string{`custom metrics API of API group "forbidden.example.com"`, `cannot list resource "queue_depth" in API group "forbidden.example.com"`},
	}, {
		name: "an External metric answered with a custom metrics list",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetExternalMetric(context.Background(), "custom_shaped", testNamespace, labels.Everything(), "adapter-a.example.com")
			return err
		},
		want: []string{`API group "adapter-a.example.com"`, "must answer with a ExternalMetricValueList of external.metrics.k8s.io/v1beta1",
			`kind "MetricValueList" of apiVersion "custom.metrics.k8s.io/v1beta2"`},
	}, {
		name: "an External metric answered without kind and apiVersion",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetExternalMetric(context.Background(), "queue_depth", testNamespace, labels.Everything(), "untyped.example.com")
			return err
		},
		want: []string{`API group "untyped.example.com"`, "an object without kind and apiVersion"},
	}, {
		name: "a Pods metric answered with the source's own group as apiVersion",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetRawMetric(context.Background(), "qps", testNamespace, labels.Everything(), labels.Everything(), "own-group.example.com")
			return err
		},
		want: []string{`API group "own-group.example.com"`, "must answer with a MetricValueList of custom.metrics.k8s.io"},
	}, {
		name: "a group that serves no custom metrics version the decoder knows",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetRawMetric(context.Background(), "qps", testNamespace, labels.Everything(), labels.Everything(), "future.example.com")
			return err
		},
		want: []string{`API group "future.example.com" serves no custom metrics version (v1beta2 or v1beta1), only [v2]`},
	}, {
		name: "an empty answer of a source",
		fetch: func(c *RESTClient) error {
			_, _, err := c.GetExternalMetric(context.Background(), "queue_depth_empty", testNamespace, labels.Everything(), "adapter-a.example.com")
			if !errors.Is(err, ErrNoMetrics) {
				return fmt.Errorf("error %v does not wrap ErrNoMetrics", err)
			}
			return err
		},
		want: []string{`no metrics returned from external metrics API of API group "adapter-a.example.com"`},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fetch(newSourceClient(t, newSourceServer(t)))
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestRoutedExternalMetricsAreReadAsJSON pins that a source's external
// metrics are asked for as JSON, which strictExternalClient decodes, even
// when the metrics APIs are read in protobuf (--kube-api-content-type).
func TestRoutedExternalMetricsAreReadAsJSON(t *testing.T) {
	s := newSourceServer(t)
	cfg := &rest.Config{Host: s.URL, ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf",
		AcceptContentTypes: "application/vnd.kubernetes.protobuf,application/json"}}
	c, err := NewRESTClient(Options{Config: cfg, RESTMapper: newStaticMapper()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.GetExternalMetric(context.Background(), "queue_depth", testNamespace, labels.Everything(), "adapter-a.example.com"); err != nil {
		t.Fatal(err)
	}
	path := "/apis/adapter-a.example.com/v1beta1/namespaces/" + testNamespace + "/queue_depth"
	if got := s.accept[path]; got != "application/json" {
		t.Errorf("Accept = %q, want application/json", got)
	}
}

// TestRoutedFetchWithoutSourceClients pins that a client built from given
// clients alone (no config) refuses a routed fetch instead of sending it
// to the default API.
func TestRoutedFetchWithoutSourceClients(t *testing.T) {
	f := newFakes()
	c, err := NewRESTClient(Options{ResourceClient: f.resource.MetricsV1beta1(), CustomClient: f.custom, ExternalClient: f.external})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.GetExternalMetric(context.Background(), "queue_depth", testNamespace, labels.Everything(), "adapter-a.example.com")
	if !errors.Is(err, errNoSources) {
		t.Errorf("error = %v, want errNoSources", err)
	}
}

// countingBuilder builds placeholder clients and counts the builds, so
// that the cache's bound and eviction can be watched without a server.
type countingBuilder struct {
	mu       sync.Mutex
	external map[string]int
	custom   map[string]int
	fail     map[string]error
}

func newCountingBuilder() *countingBuilder {
	return &countingBuilder{external: map[string]int{}, custom: map[string]int{}, fail: map[string]error{}}
}

func (b *countingBuilder) externalBuilds(group string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.external[group]
}

func (b *countingBuilder) customBuilds(group string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.custom[group]
}

func (b *countingBuilder) externalFor(group string) (externalclient.ExternalMetricsClient, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.external[group]++
	return strictExternalClient{}, nil
}

func (b *countingBuilder) customFor(_ context.Context, group string) (customclient.CustomMetricsClient, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.custom[group]++
	if err := b.fail[group]; err != nil {
		return nil, err
	}
	return customclient.NewForVersion(nil, nil, customapi.SchemeGroupVersion), nil
}

// builderFuncs adapts countingBuilder to sourceBuilder.
type builderFuncs struct{ b *countingBuilder }

func (f builderFuncs) external(group string) (externalclient.ExternalMetricsClient, error) {
	return f.b.externalFor(group)
}

func (f builderFuncs) custom(ctx context.Context, group string) (customclient.CustomMetricsClient, error) {
	return f.b.customFor(ctx, group)
}

// TestSourceCache pins the KEP's bounded cache: clients are built once per
// group, at most max groups are kept, the least recently used is evicted
// with a warning, and discovery is forgotten on refresh while the clients
// that need none are kept.
func TestSourceCache(t *testing.T) {
	ctx := context.Background()
	newCache := func(maxGroups int) (*sourceCache, *countingBuilder, *[]string) {
		b := newCountingBuilder()
		var warnings []string
		log := funcr.New(func(_, args string) { warnings = append(warnings, args) }, funcr.Options{})
		return newSourceCache(builderFuncs{b}, maxGroups, log), b, &warnings
	}
	use := func(t *testing.T, c *sourceCache, groups ...string) {
		t.Helper()
		for _, g := range groups {
			if _, err := c.ExternalClientForGroup(ctx, g); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("a group's client is built once and reused", func(t *testing.T) {
		c, b, _ := newCache(3)
		use(t, c, "a", "a", "a")
		if _, err := c.CustomClientForGroup(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CustomClientForGroup(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if b.externalBuilds("a") != 1 || b.customBuilds("a") != 1 {
			t.Errorf("builds: external %d, custom %d; want 1 each", b.externalBuilds("a"), b.customBuilds("a"))
		}
	})
	t.Run("the bound defaults to the KEP's 20", func(t *testing.T) {
		c, _, _ := newCache(0)
		if c.max != 20 {
			t.Errorf("max = %d, want 20", c.max)
		}
	})
	t.Run("the least recently used group is evicted with a warning naming it", func(t *testing.T) {
		c, b, warnings := newCache(2)
		use(t, c, "a", "b", "a", "c") // b is the least recently used when c arrives
		if n := c.groups.Len(); n != 2 {
			t.Errorf("%d groups cached, want 2", n)
		}
		use(t, c, "a", "c")
		if b.externalBuilds("a") != 1 || b.externalBuilds("c") != 1 {
			t.Errorf("a and c were rebuilt (%d, %d builds): want them kept", b.externalBuilds("a"), b.externalBuilds("c"))
		}
		if len(*warnings) != 1 || !strings.Contains((*warnings)[0], `"apiGroup"="b"`) || !strings.Contains((*warnings)[0], `"limit"=2`) {
			t.Errorf("warnings = %q, want one naming group b and the limit", *warnings)
		}
		use(t, c, "b")
		if b.externalBuilds("b") != 2 {
			t.Errorf("an evicted group is rebuilt on use: %d builds, want 2", b.externalBuilds("b"))
		}
	})
	t.Run("a failed discovery is not cached", func(t *testing.T) {
		c, b, _ := newCache(2)
		b.fail["a"] = errors.New("no such group")
		if _, err := c.CustomClientForGroup(ctx, "a"); err == nil {
			t.Fatal("want the discovery error")
		}
		delete(b.fail, "a")
		if _, err := c.CustomClientForGroup(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if b.customBuilds("a") != 2 {
			t.Errorf("custom builds = %d, want 2 (the failure is asked again)", b.customBuilds("a"))
		}
	})
	t.Run("a refresh forgets discovery and keeps the groups", func(t *testing.T) {
		c, b, _ := newCache(2)
		use(t, c, "a")
		if _, err := c.CustomClientForGroup(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		c.forgetVersions()
		if _, err := c.CustomClientForGroup(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		use(t, c, "a")
		if b.customBuilds("a") != 2 || b.externalBuilds("a") != 1 {
			t.Errorf("builds after refresh: custom %d (want 2), external %d (want 1)", b.customBuilds("a"), b.externalBuilds("a"))
		}
	})
	t.Run("concurrent use of many groups stays within the bound", func(t *testing.T) {
		c, _, _ := newCache(5)
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				group := fmt.Sprintf("g%d", i%12)
				if _, err := c.CustomClientForGroup(ctx, group); err != nil {
					t.Error(err)
				}
				if _, err := c.ExternalClientForGroup(ctx, group); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if n := c.groups.Len(); n > 5 {
			t.Errorf("%d groups cached, bound is 5", n)
		}
	})
}

// TestChooseCustomVersion pins which version of a source is used.
func TestChooseCustomVersion(t *testing.T) {
	cases := []struct {
		name    string
		group   metav1.APIGroup
		want    string
		wantErr bool
	}{
		{name: "the preferred version when the decoder knows it", group: group("a.example.com", "v1beta1", "v1beta2"), want: "v1beta1"},
		{name: "the first known version when the preferred one is unknown", group: group("a.example.com", "v2", "v1beta2", "v1beta1"), want: "v1beta2"},
		{name: "no known version is an error", group: group("a.example.com", "v2", "v1"), wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseCustomVersion(&tc.group)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("chooseCustomVersion = %q, %v; want %q, error %t", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
