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
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// recordingProxy is a process's only way to kube-apiserver: plain HTTP on
// the loopback, forwarded with the cluster's own credentials. What it
// records is what kube-apiserver answered, so it tells which writes of that
// process landed, and when, with no help from the process itself. It can
// also hold one request, so that a test knows the process is waiting on it.
type recordingProxy struct {
	kubeconfig string
	next       http.RoundTripper
	reverse    *httputil.ReverseProxy

	mu      sync.Mutex
	records []proxiedRequest
	hold    *heldRequest
}

// proxiedRequest is a request the proxy forwarded and kube-apiserver's
// answer: code 0 when none came.
type proxiedRequest struct {
	method, path string
	// shardSelector is the selector of a list that carried one: each is
	// an informer's (re)list of a shard's objects.
	shardSelector string
	code          int
	// answered is when the answer came back from kube-apiserver, so after
	// the write it carries was stored; or when the forward ended without
	// one.
	answered time.Time
}

func (r proxiedRequest) succeeded() bool { return r.code >= 200 && r.code < 300 }

// mayHaveLanded tells a write that kube-apiserver may have stored: one it
// accepted, and one whose client went away before the answer, which may
// still have been stored.
func (r proxiedRequest) mayHaveLanded() bool { return r.code == 0 || r.succeeded() }

// heldRequest is the first request that match picks: the proxy keeps it
// from kube-apiserver until release is closed.
type heldRequest struct {
	match func(*http.Request) bool
	// arrived is closed when the request reached the proxy, delivered once
	// kube-apiserver's answer to it was written back to the client.
	arrived, release, delivered chan struct{}
	taken                       bool
}

func newHeldRequest(match func(*http.Request) bool) *heldRequest {
	return &heldRequest{match: match, arrived: make(chan struct{}), release: make(chan struct{}), delivered: make(chan struct{})}
}

// startRecordingProxy serves the proxy until the test ends and writes a
// kubeconfig that leads to it. hold may be nil.
func startRecordingProxy(t *testing.T, cluster *localcluster.Cluster, hold *heldRequest) *recordingProxy {
	t.Helper()
	cfg := cluster.RESTConfig()
	next, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{next: next, hold: hold}
	p.reverse = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) },
		// Watches stream: each event goes on as it comes.
		FlushInterval: -1,
		Transport:     p,
		// The client going away (a replica stopped by the test) is no
		// news; the record says what reached kube-apiserver.
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) },
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("the recording proxy stopped serving: %v", err)
		}
	})

	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: "http://" + l.Addr().String()}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	kc.CurrentContext = "proxy"
	p.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, p.kubeconfig); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p.kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *recordingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := p.take(r); h != nil {
		close(h.arrived)
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
		defer close(h.delivered)
	}
	p.reverse.ServeHTTP(w, r)
}

// take returns the held request if r is the one it waits for.
func (p *recordingProxy) take(r *http.Request) *heldRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold == nil || p.hold.taken || !p.hold.match(r) {
		return nil
	}
	p.hold.taken = true
	return p.hold
}

// RoundTrip forwards a request to kube-apiserver and records it when it
// writes, when it lists with a shard selector, or when it is the held one.
func (p *recordingProxy) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.next.RoundTrip(req)
	query := req.URL.Query()
	shardList := query.Get("shardSelector") != "" && query.Get("watch") != "true" && query.Get("watch") != "1"
	if req.Method == http.MethodGet && !shardList && (p.hold == nil || !p.hold.match(req)) {
		return resp, err
	}
	rec := proxiedRequest{method: req.Method, path: req.URL.Path, answered: time.Now()}
	if shardList {
		rec.shardSelector = query.Get("shardSelector")
	}
	if err == nil {
		rec.code = resp.StatusCode
	}
	p.mu.Lock()
	p.records = append(p.records, rec)
	p.mu.Unlock()
	return resp, err
}

// recorded returns what the proxy recorded so far, in the order of the
// answers.
func (p *recordingProxy) recorded() []proxiedRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.records)
}
