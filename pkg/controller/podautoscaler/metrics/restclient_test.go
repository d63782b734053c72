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
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	customapi "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	externalapi "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	metricsapi "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	testingclock "k8s.io/utils/clock/testing"
)

// metricsServer is a kube-apiserver stand-in serving discovery and the
// three metrics APIs, enough for clients built from a rest.Config.
type metricsServer struct {
	*httptest.Server
	// groupListings counts GETs of /apis: the custom metrics client asks
	// it for the preferred API version, the REST mapper for the groups.
	groupListings atomic.Int32
}

func newMetricsServer(t *testing.T) *metricsServer {
	s := &metricsServer{}
	release := make(chan struct{})
	routes := map[string]any{
		"/api": metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}},
		"/api/v1": metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"get", "list"}},
		}},
		"/apis": metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{
			group("apps", "v1"),
			group("custom.metrics.k8s.io", "v1beta2", "v1beta1"),
			group("external.metrics.k8s.io", "v1beta1"),
			group("metrics.k8s.io", "v1beta1"),
		}},
		"/apis/apps/v1": metav1.APIResourceList{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Namespaced: true, Kind: "Deployment", Verbs: metav1.Verbs{"get", "list"}},
		}},
		"/apis/custom.metrics.k8s.io/v1beta2":   metav1.APIResourceList{GroupVersion: "custom.metrics.k8s.io/v1beta2"},
		"/apis/custom.metrics.k8s.io/v1beta1":   metav1.APIResourceList{GroupVersion: "custom.metrics.k8s.io/v1beta1"},
		"/apis/external.metrics.k8s.io/v1beta1": metav1.APIResourceList{GroupVersion: "external.metrics.k8s.io/v1beta1"},
		"/apis/metrics.k8s.io/v1beta1":          metav1.APIResourceList{GroupVersion: "metrics.k8s.io/v1beta1"},
		"/apis/metrics.k8s.io/v1beta1/namespaces/" + testNamespace + "/pods": metricsapi.PodMetricsList{
			TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: "metrics.k8s.io/v1beta1"},
			Items:    []metricsapi.PodMetrics{podMetrics("web-0", t0, "app", usage("250m", ""))},
		},
		"/apis/external.metrics.k8s.io/v1beta1/namespaces/" + testNamespace + "/queue_depth": externalapi.ExternalMetricValueList{
			TypeMeta: metav1.TypeMeta{Kind: "ExternalMetricValueList", APIVersion: "external.metrics.k8s.io/v1beta1"},
			Items:    []externalapi.ExternalMetricValue{externalValue(t0, 8600)},
		},
		"/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + testNamespace + "/pods/*/qps": customapi.MetricValueList{
			TypeMeta: metav1.TypeMeta{Kind: "MetricValueList", APIVersion: "custom.metrics.k8s.io/v1beta2"},
			Items:    []customapi.MetricValue{metricValue("Pod", "web-0", t0, 1500, nil)},
		},
		"/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + testNamespace + "/deployments.apps/web/qps": customapi.MetricValueList{
			TypeMeta: metav1.TypeMeta{Kind: "MetricValueList", APIVersion: "custom.metrics.k8s.io/v1beta2"},
			Items:    []customapi.MetricValue{metricValue("Deployment", "web", t0, 4200, nil)},
		},
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apis" {
			s.groupListings.Add(1)
		}
		if strings.HasSuffix(r.URL.Path, "/slow") {
			// An adapter that accepted the request and went quiet.
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		body, found := routes[r.URL.Path]
		if !found {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(body); err != nil {
			t.Errorf("encoding %s: %v", r.URL.Path, err)
		}
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(release) }) // runs first, freeing a hung handler
	return s
}

func group(name string, versions ...string) metav1.APIGroup {
	g := metav1.APIGroup{Name: name}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: name + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

func TestNewRESTClientFromConfig(t *testing.T) {
	srv := newMetricsServer(t)
	c, err := NewRESTClient(Options{Config: &rest.Config{Host: srv.URL}, FetchTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	deployment := &autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", APIVersion: "apps/v1", Name: "web"}

	tests := []struct {
		name  string
		fetch func() (string, error)
		want  string
	}{
		{
			name: "resource metrics are read from metrics.k8s.io",
			fetch: func() (string, error) {
				m, _, err := c.GetResourceMetric(ctx, corev1.ResourceCPU, testNamespace, podSelector, "")
				return fmt.Sprint(m["web-0"].Value), err
			},
			want: "250",
		},
		{
			name: "pods metrics are read from the preferred custom metrics version",
			fetch: func() (string, error) {
				m, _, err := c.GetRawMetric(ctx, "qps", testNamespace, podSelector, labels.Everything(), "")
				return fmt.Sprint(m["web-0"].Value), err
			},
			want: "1500",
		},
		{
			name: "object metrics name the described object by its resource",
			fetch: func() (string, error) {
				v, _, err := c.GetObjectMetric(ctx, "qps", testNamespace, deployment, labels.Everything(), "")
				return fmt.Sprint(v), err
			},
			want: "4200",
		},
		{
			name: "external metrics are read from external.metrics.k8s.io",
			fetch: func() (string, error) {
				v, _, err := c.GetExternalMetric(ctx, "queue_depth", testNamespace, labels.Everything(), "")
				return fmt.Sprint(v), err
			},
			want: "[8600]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.fetch()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestHangingAdapterOverHTTPTimesOut(t *testing.T) {
	srv := newMetricsServer(t)
	c, err := NewRESTClient(Options{Config: &rest.Config{Host: srv.URL}, FetchTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = c.GetExternalMetric(testContext(t), "slow", testNamespace, labels.Everything(), "")
	if err == nil {
		t.Fatal("got no error from an adapter that never answers")
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("waited %v for an adapter that never answers", elapsed)
	}
}

func TestRefreshRediscoversTheCustomMetricsAPI(t *testing.T) {
	srv := newMetricsServer(t)
	c, err := NewRESTClient(Options{Config: &rest.Config{Host: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	fetch := func() {
		t.Helper()
		if _, _, err := c.GetRawMetric(ctx, "qps", testNamespace, podSelector, labels.Everything(), ""); err != nil {
			t.Fatal(err)
		}
	}
	fetch()
	first := srv.groupListings.Load()
	if first == 0 {
		t.Fatal("the first fetch did not discover the custom metrics API")
	}
	fetch()
	if n := srv.groupListings.Load(); n != first {
		t.Errorf("a second fetch listed API groups again (%d times, then %d): discovery is not cached", first, n)
	}
	for _, refresh := range c.refreshers {
		refresh()
	}
	fetch()
	if n := srv.groupListings.Load(); n == first {
		t.Error("a fetch after a refresh did not discover the custom metrics API again")
	}
}

func TestRunRefreshesEveryInterval(t *testing.T) {
	clk := testingclock.NewFakeClock(t0)
	c, err := NewRESTClient(Options{
		ResourceClient: newFakes().resource.MetricsV1beta1(), CustomClient: newFakes().custom, ExternalClient: newFakes().external,
		RefreshInterval: time.Minute, Clock: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	refreshed := make(chan struct{})
	c.refreshers = []func(){func() { refreshed <- struct{}{} }}

	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()

	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond) // until Run's ticker is registered
	}
	for i := range 2 {
		clk.Step(time.Minute)
		select {
		case <-refreshed:
		case <-time.After(10 * time.Second):
			t.Fatalf("tick %d did not refresh", i)
		}
	}
	cancel()
	<-done
}

func TestRunWithNothingToRefreshWaitsForTheContext(t *testing.T) {
	f := newFakes()
	c := f.client(t, 0)
	if len(c.refreshers) != 0 {
		t.Fatalf("given clients got %d refreshers, the case needs none", len(c.refreshers))
	}
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()

	// A Run that does not wait returns at once, so a short wait catches it;
	// a correct Run cannot fail this, however slow the machine.
	select {
	case <-done:
		t.Fatal("Run returned before its context was cancelled")
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

func TestNewRESTClientOptions(t *testing.T) {
	f := newFakes()
	tests := []struct {
		name           string
		opts           Options
		wantErr        string
		wantTimeout    time.Duration
		wantInterval   time.Duration
		wantRefreshers int
	}{
		{
			name:         "given clients need no config, and get the default time-out and interval",
			opts:         Options{ResourceClient: f.resource.MetricsV1beta1(), CustomClient: f.custom, ExternalClient: f.external},
			wantTimeout:  DefaultFetchTimeout,
			wantInterval: DefaultRefreshInterval,
		},
		{
			name:         "a time-out and interval given are kept",
			opts:         Options{ResourceClient: f.resource.MetricsV1beta1(), CustomClient: f.custom, ExternalClient: f.external, FetchTimeout: 3 * time.Second, RefreshInterval: time.Minute},
			wantTimeout:  3 * time.Second,
			wantInterval: time.Minute,
		},
		{
			name:    "a missing client without a config is an error",
			opts:    Options{ResourceClient: f.resource.MetricsV1beta1(), CustomClient: f.custom},
			wantErr: "Options.Config is required",
		},
		{
			name:           "clients built here are refreshed for their API versions (default and sources) and REST mapper",
			opts:           Options{Config: &rest.Config{Host: "https://127.0.0.1:1"}},
			wantTimeout:    DefaultFetchTimeout,
			wantInterval:   DefaultRefreshInterval,
			wantRefreshers: 3,
		},
		{
			name:           "a REST mapper given is left to its owner to refresh",
			opts:           Options{Config: &rest.Config{Host: "https://127.0.0.1:1"}, RESTMapper: newStaticMapper()},
			wantTimeout:    DefaultFetchTimeout,
			wantInterval:   DefaultRefreshInterval,
			wantRefreshers: 2,
		},
		{
			name:           "source clients given are left to their owner to refresh",
			opts:           Options{Config: &rest.Config{Host: "https://127.0.0.1:1"}, RESTMapper: newStaticMapper(), SourceClients: newSourceCache(nil, 0, logr.Discard())},
			wantTimeout:    DefaultFetchTimeout,
			wantInterval:   DefaultRefreshInterval,
			wantRefreshers: 1,
		},
		{
			name:    "a config the clients cannot use is an error",
			opts:    Options{Config: &rest.Config{Host: "https://127.0.0.1:1", QPS: 5}},
			wantErr: "burst is required",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewRESTClient(tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.fetchTimeout != tc.wantTimeout || c.refreshInterval != tc.wantInterval || len(c.refreshers) != tc.wantRefreshers {
				t.Errorf("got time-out %v, interval %v, %d refreshers; want %v, %v, %d",
					c.fetchTimeout, c.refreshInterval, len(c.refreshers), tc.wantTimeout, tc.wantInterval, tc.wantRefreshers)
			}
		})
	}
}

func newStaticMapper() *meta.DefaultRESTMapper {
	return meta.NewDefaultRESTMapper(nil)
}

// One client-side limit covers every metrics API: two fetches of
// different APIs spend a burst of two, and a third waits for a token
// that does not come within its fetch time-out, without reaching the
// server. Without QPS, each API's client keeps the limit of its Config.
func TestMetricsAPIsShareOneLimit(t *testing.T) {
	cases := []struct {
		name         string
		qps          float32
		burst        int
		wantRequests int32
		wantThirdErr bool
	}{
		{name: "a third fetch waits behind the shared burst", qps: 0.001, burst: 2, wantRequests: 2, wantThirdErr: true},
		{name: "without a metrics limit each API keeps the Config's", wantRequests: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newMetricsServer(t)
			var requests atomic.Int32
			inner := srv.Config.Handler
			srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				inner.ServeHTTP(w, r)
			})
			// The Config's own limit lets three requests through at once.
			c, err := NewRESTClient(Options{Config: &rest.Config{Host: srv.URL, QPS: 0.001, Burst: 3},
				QPS: tc.qps, Burst: tc.burst, FetchTimeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx := testContext(t)
			if _, _, err := c.GetResourceMetric(ctx, corev1.ResourceCPU, testNamespace, podSelector, ""); err != nil {
				t.Fatalf("first fetch: %v", err)
			}
			if _, _, err := c.GetExternalMetric(ctx, "queue_depth", testNamespace, labels.Everything(), ""); err != nil {
				t.Fatalf("second fetch: %v", err)
			}
			_, _, err = c.GetExternalMetric(ctx, "queue_depth", testNamespace, labels.Everything(), "")
			if (err != nil) != tc.wantThirdErr {
				t.Errorf("third fetch: error %v, want an error: %v", err, tc.wantThirdErr)
			}
			if n := requests.Load(); n != tc.wantRequests {
				t.Errorf("the server saw %d requests, want %d", n, tc.wantRequests)
			}
		})
	}
}
