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

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// Prometheus mode (-metrics=prometheus): the examples' external metric
// queue_depth is a PromQL query over a gauge of the exporter, one series
// per queue, as prometheus-adapter would map it.
const (
	demoGauge = "demo_queue_depth"
	// demoQuery keeps the queue label, which the examples' selectors
	// pick.
	demoQuery = "sum by (queue) (" + demoGauge + ")"
)

// applyPrometheusMetrics gives each example's queue a value on the
// exporter and maps queue_depth to demoQuery in the adapter's ConfigMap.
func applyPrometheusMetrics(local *framework.Local, value float64) error {
	for _, t := range exampleTargets {
		if err := local.Exporter().Set(demoGauge, map[string]string{"queue": t.metricSelector}, value); err != nil {
			return err
		}
	}
	cfg := local.Config()
	patch := fmt.Sprintf(`{"data":{"external.queue_depth":%q}}`, "query: "+demoQuery)
	if out, err := local.Cluster().Kubectl("-n", cfg.MetricsNamespace, "patch", "configmap", cfg.MetricsConfigMap, "--type=merge", "-p", patch); err != nil {
		return fmt.Errorf("mapping queue_depth to PromQL: %w\n%s", err, out)
	}
	return nil
}

// prometheusControl lets a person stop, start, pause and resume the local
// Prometheus with curl (POST /prometheus/stop ...), to watch the HPAs fall
// back and recover; Prometheus keeps its port and data across a stop.
type prometheusControl struct {
	prom     *localcluster.Prometheus
	listener net.Listener
	server   *http.Server
}

func startPrometheusControl(ctx context.Context, prom *localcluster.Prometheus) (*prometheusControl, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &prometheusControl{prom: prom, listener: l}
	mux := http.NewServeMux()
	for action, do := range map[string]func() error{
		"stop":   func() error { return prom.Stop(ctx) },
		"start":  func() error { return prom.Start(ctx) },
		"pause":  prom.Pause,
		"resume": prom.Resume,
	} {
		mux.HandleFunc("POST /prometheus/"+action, func(w http.ResponseWriter, _ *http.Request) {
			if err := do(); err != nil {
				http.Error(w, err.Error(), http.StatusConflict)
				return
			}
			fmt.Fprintf(w, "prometheus: %s done\n", action)
		})
	}
	c.server = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.server.Serve(l) }()
	return c, nil
}

// URL is the base URL of the control.
func (c *prometheusControl) URL() string { return "http://" + c.listener.Addr().String() }

func (c *prometheusControl) Close() error {
	if err := c.server.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func printWhatToTryWithPrometheus(local *framework.Local, control *prometheusControl) {
	cfg := local.Config()
	kubectl := fmt.Sprintf("%s --kubeconfig=%s", cfg.Kubectl, cfg.Kubeconfig)
	hpa, where := "xhpa", "hpa-controller-manager"
	if cfg.Mode == framework.ModeInTree {
		hpa, where = "hpa", "kube-controller-manager (in-tree mode)"
	}
	fmt.Printf(`
kube-hpa is running in %[1]s on a local control plane; the examples' metric comes from Prometheus.

  kubeconfig:  %[2]s
  kubectl:     %[3]s
  Prometheus:  %[4]s (log %[5]s)
  logs:        %[6]s

The test metrics adapter answers the external metric queue_depth with the PromQL query
  %[7]s
over the gauges of an exporter that Prometheus scrapes every second; each example HPA selects one
queue (metric.selector), as it would behind prometheus-adapter.

Try:

  # watch the example HPAs
  %[8]s get %[9]s -A -w

  # the orders queue grows: 150 at an average of 30 per replica asks queue-worker-fallback for 5
  curl -X PUT --data 150 '%[10]s/gauges/%[11]s?queue=orders'

  # what the adapter asks Prometheus
  curl -s %[4]s/api/v1/query --data-urlencode 'query=%[7]s'

  # stop Prometheus: the adapter answers 503 ("Prometheus is unreachable"); after
  # failureDurationSeconds (300 s) queue-worker-fallback falls back to 10 replicas
  curl -X POST %[12]s/prometheus/stop
  %[8]s get %[9]s queue-worker-fallback -o yaml   # status.currentMetrics[].external.fallbackStatus, conditions
  %[8]s get events --field-selector involvedObject.name=queue-worker-fallback

  # bring it back: the metric recovers and the fallback ends
  curl -X POST %[12]s/prometheus/start
  # (or make it hang instead: /prometheus/pause, then /prometheus/resume)

Press Ctrl-C to stop everything.
`, where, cfg.Kubeconfig, cfg.Kubectl, cfg.PrometheusURL, local.Prometheus().LogPath(), cfg.LogDir,
		demoQuery, kubectl, hpa, cfg.ExporterURL, demoGauge, control.URL())
}
