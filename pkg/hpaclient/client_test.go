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

package hpaclient

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// fakeServer serves the extended HPA kind the way the API server serves the
// CRD, enough for list, get, create and the status subresource.
type fakeServer struct {
	mu       sync.Mutex
	requests []string
	// headers holds "METHOD accept=... content-type=..." for every
	// request, watches included.
	headers []string
	hpa     v2.HorizontalPodAutoscaler
}

func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.recordHeaders(r)
	w.Header().Set("Content-Type", "application/json")
	if ct := r.Header.Get("Content-Type"); r.ContentLength != 0 && ct != "application/json" {
		// As the API server answers a custom resource sent as protobuf.
		http.Error(w, "unsupported media type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	if r.URL.Query().Get("sendInitialEvents") == "true" {
		// Like an API server without streaming lists: the informer falls
		// back to list and watch.
		http.Error(w, "sendInitialEvents is not supported", http.StatusBadRequest)
		return
	}
	if r.URL.Query().Get("watch") == "true" {
		// A watch that stays open with no event, outside the lock.
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	base := "/apis/autoscaling.kube-hpa.io/v2/namespaces/default/horizontalpodautoscalers"
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/apis/autoscaling.kube-hpa.io/v2/horizontalpodautoscalers" || r.URL.Path == base):
		list := v2.HorizontalPodAutoscalerList{TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling.kube-hpa.io/v2", Kind: "HorizontalPodAutoscalerList"},
			ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []v2.HorizontalPodAutoscaler{s.hpa}}
		_ = json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodGet && r.URL.Path == base+"/web":
		_ = json.NewEncoder(w).Encode(s.hpa)
	case (r.Method == http.MethodPut && r.URL.Path == base+"/web/status") || (r.Method == http.MethodPost && r.URL.Path == base):
		body, _ := io.ReadAll(r.Body)
		var in v2.HorizontalPodAutoscaler
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodPut {
			s.hpa.Status = in.Status // the status subresource ignores spec
		} else {
			s.hpa = in
		}
		_ = json.NewEncoder(w).Encode(s.hpa)
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

func (s *fakeServer) recordHeaders(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.headers = append(s.headers, r.Method+" accept="+r.Header.Get("Accept")+" content-type="+r.Header.Get("Content-Type"))
}

func (s *fakeServer) recordedHeaders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.headers)
}

func newTestClient(t *testing.T) (*Client, *fakeServer) {
	t.Helper()
	return newTestClientFor(t, rest.ContentConfig{})
}

// newTestClientFor builds a client from a configuration with content, as
// the binary's flags would set it.
func newTestClientFor(t *testing.T, content rest.ContentConfig) (*Client, *fakeServer) {
	t.Helper()
	fs := &fakeServer{hpa: v2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling.kube-hpa.io/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", ResourceVersion: "1"},
		Spec:       v2.HorizontalPodAutoscalerSpec{MaxReplicas: 5},
	}}
	srv := httptest.NewServer(fs)
	t.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL, ContentConfig: content}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ContentConfig != content {
		t.Fatalf("New changed the caller's content config to %+v", cfg.ContentConfig)
	}
	return c, fs
}

// The API server serves custom resources as JSON (or CBOR), never as
// protobuf, so the client must speak JSON even when the binary's flags ask
// protobuf of every other client.
func TestClientSpeaksJSONWhateverTheConfigSays(t *testing.T) {
	cases := []struct {
		name    string
		content rest.ContentConfig
	}{
		{name: "no content type configured", content: rest.ContentConfig{}},
		{name: "protobuf with JSON as a fallback, the binary's default", content: rest.ContentConfig{
			ContentType: "application/vnd.kubernetes.protobuf", AcceptContentTypes: "application/vnd.kubernetes.protobuf,application/json"}},
		{name: "protobuf only", content: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, fs := newTestClientFor(t, tc.content)
			exerciseEveryVerb(t, c)
			want := []string{
				"GET accept=application/json content-type=",
				"GET accept=application/json content-type=",
				"GET accept=application/json content-type=",
				"PUT accept=application/json content-type=application/json",
				"POST accept=application/json content-type=application/json",
			}
			if got := fs.recordedHeaders(); !slices.Equal(got, want) {
				t.Errorf("requests were\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// exerciseEveryVerb watches, gets, lists, updates the status of and
// creates an HPA, failing t on any error.
func exerciseEveryVerb(t *testing.T, c *Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := c.Watch(ctx, "default", metav1.ListOptions{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	w.Stop()
	hpa, err := c.Get(ctx, "default", "web")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if _, err := c.List(ctx, "", metav1.ListOptions{}); err != nil {
		t.Fatalf("List: %v", err)
	}
	if _, err := c.UpdateStatus(ctx, hpa); err != nil {
		t.Fatalf("UpdateStatus: %v", err)
	}
	if _, err := c.Create(ctx, &v2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

func TestClientReadsAndWritesTheExtendedKind(t *testing.T) {
	c, fs := newTestClient(t)
	ctx := context.Background()

	got, err := c.Get(ctx, "default", "web")
	if err != nil || got.Spec.MaxReplicas != 5 {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	list, err := c.List(ctx, "", metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	got.Spec.MaxReplicas = 50
	got.Status.DesiredReplicas = 3
	updated, err := c.UpdateStatus(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	if updated.Status.DesiredReplicas != 3 || updated.Spec.MaxReplicas != 5 {
		t.Errorf("UpdateStatus wrote %+v; want the status written and the spec left alone", updated)
	}
	if _, err := c.Create(ctx, &v2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}); err != nil {
		t.Errorf("Create: %v", err)
	}
	want := []string{
		"GET /apis/autoscaling.kube-hpa.io/v2/namespaces/default/horizontalpodautoscalers/web",
		"GET /apis/autoscaling.kube-hpa.io/v2/horizontalpodautoscalers",
		"PUT /apis/autoscaling.kube-hpa.io/v2/namespaces/default/horizontalpodautoscalers/web/status",
		"POST /apis/autoscaling.kube-hpa.io/v2/namespaces/default/horizontalpodautoscalers",
	}
	if len(fs.requests) != len(want) {
		t.Fatalf("requests = %q, want %q", fs.requests, want)
	}
	for i := range want {
		if fs.requests[i] != want[i] {
			t.Errorf("request %d = %q, want %q", i, fs.requests[i], want[i])
		}
	}
}

func TestSourceServesTheInformerCache(t *testing.T) {
	c, _ := newTestClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informer := NewInformer(c, metav1.NamespaceAll, 0)
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("informer never synced")
	}
	src := NewSource(c, informer)
	hpa, ok, err := src.Get("default", "web")
	if err != nil || !ok || hpa.Spec.MaxReplicas != 5 {
		t.Fatalf("Get = %+v, %v, %v", hpa, ok, err)
	}
	if _, ok, _ := src.Get("default", "missing"); ok {
		t.Error("Get of a missing HPA reported it present")
	}
	ref := src.EventObject(hpa)
	if gvk := ref.GetObjectKind().GroupVersionKind(); gvk.Group != v2.GroupName || gvk.Kind != "HorizontalPodAutoscaler" {
		t.Errorf("event object kind = %v", gvk)
	}
	written, err := src.UpdateStatus(ctx, hpa)
	if err != nil || written == "" {
		t.Errorf("UpdateStatus = %q, %v, want the resourceVersion written", written, err)
	}
}

func TestInformerListsItsNamespace(t *testing.T) {
	cases := []struct {
		name      string
		namespace string
		wantList  string
	}{
		{name: "every namespace, as the binary runs it", namespace: metav1.NamespaceAll,
			wantList: "GET /apis/autoscaling.kube-hpa.io/v2/horizontalpodautoscalers"},
		{name: "one namespace", namespace: "default",
			wantList: "GET /apis/autoscaling.kube-hpa.io/v2/namespaces/default/horizontalpodautoscalers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, fs := newTestClient(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			informer := NewInformer(c, tc.namespace, 0)
			go informer.RunWithContext(ctx)
			if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
				t.Fatal("informer never synced")
			}
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if len(fs.requests) == 0 || fs.requests[0] != tc.wantList {
				t.Errorf("requests = %q, want the first to be %q", fs.requests, tc.wantList)
			}
		})
	}
}
