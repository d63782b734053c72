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

package localcluster

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2/ktesting"
)

func TestPrometheusConfig(t *testing.T) {
	got := prometheusConfig(PrometheusOptions{Targets: []string{"127.0.0.1:1234", "127.0.0.1:5678"}, ScrapeInterval: 2 * time.Second})
	for _, want := range []string{"scrape_interval: 2s", "scrape_timeout: 2s", `targets: ["127.0.0.1:1234", "127.0.0.1:5678"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("configuration lacks %q:\n%s", want, got)
		}
	}
}

// TestPrometheusScrapesTheExporter runs the real Prometheus of
// hack/build-upstream.sh (make integration) through what the e2e suite does
// with it: a value set on the exporter becomes queryable, a paused
// Prometheus hangs, a stopped one refuses connections, and one started
// again answers on the same URL.
func TestPrometheusScrapesTheExporter(t *testing.T) {
	if os.Getenv("KUBE_HPA_INTEGRATION") != "1" {
		t.Skip("runs Prometheus: set KUBE_HPA_INTEGRATION=1")
	}
	binDir, err := DefaultBinDir()
	if err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(binDir, "prometheus")
	if _, err := os.Stat(binary); err != nil {
		t.Skipf("missing %s (hack/build-upstream.sh prometheus)", binary)
	}
	_, ctx := ktesting.NewTestContext(t)
	e, err := StartExporter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if err := e.Set("queue_depth", map[string]string{"queue": "orders"}, 30); err != nil {
		t.Fatal(err)
	}
	p, err := StartPrometheus(ctx, PrometheusOptions{Binary: binary, Dir: t.TempDir(), Targets: []string{e.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})

	waitForValue(ctx, t, p, `sum(queue_depth{queue="orders"})`, "30")
	if err := e.Set("queue_depth", map[string]string{"queue": "orders"}, 45); err != nil {
		t.Fatal(err)
	}
	waitForValue(ctx, t, p, `sum(queue_depth{queue="orders"})`, "45")

	if err := p.Pause(); err != nil {
		t.Fatal(err)
	}
	if _, err := query(ctx, p, "up", 500*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a paused Prometheus answered: %v", err)
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := query(ctx, p, "up", time.Second); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a stopped Prometheus: %v, want a refused connection", err)
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitForValue(ctx, t, p, `sum(queue_depth{queue="orders"})`, "45")
}

// query asks Prometheus's HTTP API for an instant query and returns the
// value of its first sample ("" when it has none).
func query(ctx context.Context, p *Prometheus, q string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL()+"/api/v1/query?query="+url.QueryEscape(q), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var answer struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return "", err
	}
	if len(answer.Data.Result) == 0 {
		return "", nil
	}
	v, _ := answer.Data.Result[0].Value[1].(string)
	return v, nil
}

func waitForValue(ctx context.Context, t *testing.T, p *Prometheus, q, want string) {
	t.Helper()
	var last string
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		last, lastErr = query(ctx, p, q, 5*time.Second)
		return lastErr == nil && last == want, nil
	})
	if err != nil {
		t.Fatalf("%s: got %q (%v), want %s (log %s)", q, last, lastErr, want, p.LogPath())
	}
}
