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

package webhook

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// testLimits are DefaultLimits with what a test shortens.
func testLimits(change func(*Limits)) Limits {
	l := DefaultLimits()
	change(&l)
	return l
}

// startServer serves handler with WithLimits on loopback, over plain
// HTTP/1.1: the deadlines are the connection's, the same with or without
// TLS (cmd/hpa-controller-manager's tests serve them over TLS and HTTP/2).
func startServer(t *testing.T, handler http.Handler, limits Limits) string {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: WithLimits(ctx, handler, limits), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serving: %v", err)
		}
	})
	return ln.Addr().String()
}

func TestDefaultLimitsFitTheAPIServersWebhookCalls(t *testing.T) {
	l := DefaultLimits()
	checks := []struct {
		name string
		ok   bool
	}{
		{"the body is read within the time the response may take", l.ReadTimeout > 0 && l.ReadTimeout < l.WriteTimeout},
		{"an answer is not cut off before the API server's longest wait of 30s", l.WriteTimeout >= 30*time.Second},
		{"requests in flight are bounded", l.MaxInFlight > 0},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: %+v", c.name, l)
		}
	}
}

func TestAnOversizeBodyIsAnswered413OverTheWire(t *testing.T) {
	addr := startServer(t, NewHandler(features.NewFeatureGate()), DefaultLimits())
	cases := []struct {
		name string
		// unannounced sends the body chunked, without a Content-Length.
		unannounced bool
	}{
		{name: "announced by its Content-Length"},
		{name: "sent chunked", unannounced: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = bytes.NewReader(bytes.Repeat([]byte(" "), 7<<20))
			if tc.unannounced {
				body = io.MultiReader(body)
			}
			req, err := http.NewRequest(http.MethodPost, "http://"+addr+Path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			reason, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(reason), "the body is larger than") {
				t.Errorf("got %s %q, want 413 with the reason", resp.Status, reason)
			}
		})
	}
}

// TestASlowBodyIsCutOffAtTheReadTimeout sends the headers of a review and
// then its body a byte at a time: the server answers 408 and closes once
// the read timeout has passed, long before the body would be complete.
func TestASlowBodyIsCutOffAtTheReadTimeout(t *testing.T) {
	const bodyBytes = 1000
	const drip = 10 * time.Millisecond // the whole body: 10s
	addr := startServer(t, NewHandler(features.NewFeatureGate()), testLimits(func(l *Limits) {
		l.ReadTimeout = 200 * time.Millisecond
	}))
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", Path, bodyBytes); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent int
	wg.Add(1)
	go func() {
		defer wg.Done()
		ticker := time.NewTicker(drip)
		defer ticker.Stop()
		for sent < bodyBytes {
			select {
			case <-stop:
				return
			case <-ticker.C:
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			sent++
		}
	}()

	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("reading the response after %d of %d bytes: %v", sent, bodyBytes, err)
	}
	defer resp.Body.Close()
	if sent >= bodyBytes {
		t.Fatalf("the whole body was sent before the server answered %s", resp.Status)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status = %s, want 408", resp.Status)
	}
	if !resp.Close {
		t.Error("the server keeps the connection of a request it cut off")
	}
}

// TestRequestsBeyondMaxInFlightAre429 holds MaxInFlight requests in a
// handler and sends one more: it is answered 429 at once, with a
// Retry-After, and a request after the held ones finish is served.
func TestRequestsBeyondMaxInFlightAre429(t *testing.T) {
	const maxInFlight = 2
	entered := make(chan struct{})
	release := make(chan struct{})
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
		_, _ = io.WriteString(w, "served")
	})
	addr := startServer(t, held, testLimits(func(l *Limits) { l.MaxInFlight = maxInFlight }))
	get := func(path string) (*http.Response, string, error) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp, string(body), err
	}

	results := make(chan error, maxInFlight)
	for range maxInFlight {
		go func() {
			resp, _, err := get("/hold")
			if err == nil && resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("held request: %s", resp.Status)
			}
			results <- err
		}()
	}
	for range maxInFlight {
		<-entered
	}

	resp, body, err := get("/")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" || !strings.Contains(body, "2 admission reviews are already in flight") {
		t.Errorf("one request past the bound: %s, Retry-After %q, %q; want 429, 1 and the reason", resp.Status, resp.Header.Get("Retry-After"), body)
	}

	close(release)
	for range maxInFlight {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	if resp, _, err := get("/"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("after the held requests finished: %v %v, want 200", resp, err)
	}
}

func TestWithLimitsKeepsTheLoggerButNotTheCancellationOfItsContext(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	cancel()
	var reqErr error
	handler := WithLimits(ctx, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		reqErr = r.Context().Err()
		klog.FromContext(r.Context()).Info("from a request")
	}), DefaultLimits())
	handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, Path, nil))
	if reqErr != nil {
		t.Errorf("requests start cancelled: %v", reqErr)
	}
	if log := logger.GetSink().(ktesting.Underlier).GetBuffer().String(); !strings.Contains(log, "from a request") {
		t.Errorf("requests do not log to the server context's logger; it has %q", log)
	}
}

// TestAnAnswerPastTheWriteTimeoutIsNotSent: a review that takes longer than
// the write timeout gets no answer, its connection closed, rather than
// holding it for as long as the handler takes.
func TestAnAnswerPastTheWriteTimeoutIsNotSent(t *testing.T) {
	slow := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(300 * time.Millisecond)
		_, _ = io.WriteString(w, "late")
	})
	addr := startServer(t, slow, testLimits(func(l *Limits) { l.WriteTimeout = 100 * time.Millisecond }))
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr + "/")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Errorf("got %s %q past the write timeout, want the connection closed", resp.Status, body)
	}
}
