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

package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
)

func httpGet(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %.200s", url, resp.Status, body)
	}
	return body, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// requestMetric is kube-apiserver's count of the requests it served.
const requestMetric = "apiserver_request_total"

// watchSizesMetric is kube-apiserver's histogram of the sizes of the
// events it sends to watches, in bytes; its sum is the watch egress.
const watchSizesMetric = "apiserver_watch_events_sizes_sum"

// apiServerRequests reads kube-apiserver's apiserver_request_total, summed
// per verb and resource (codes, versions and scopes together), and the
// bytes it has sent to watches so far. Neither has a label for the client,
// so the caller attributes the deltas by running one client at a time
// against an idle baseline.
func apiServerRequests(ctx context.Context, kube kubernetes.Interface) (map[string]float64, float64, error) {
	body, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("reading kube-apiserver's metrics: %w", err)
	}
	samples, err := parseSamples(bytesReader(body), requestMetric, watchSizesMetric)
	if err != nil {
		return nil, 0, err
	}
	var requests []sample
	for _, s := range samples {
		if s.name == requestMetric {
			requests = append(requests, s)
		}
	}
	return sumBy(requests, requestKey), sumWhere(samples, watchSizesMetric, nil), nil
}

// requestKey names a request kind the way a reader of the table thinks of
// it: "GET apps/deployments/scale", "LIST pods", "GET external.metrics.k8s.io"
// (every external metric together), "GET (non-resource)" for discovery.
func requestKey(l map[string]string) string {
	verb := l["verb"]
	if verb == "" {
		return ""
	}
	group, resource := l["group"], l["resource"]
	switch {
	case resource == "":
		return verb + " (non-resource)"
	case group == externalGroup:
		return verb + " " + group
	}
	path := resource
	if sub := l["subresource"]; sub != "" {
		path += "/" + sub
	}
	if group != "" {
		path = group + "/" + path
	}
	return verb + " " + path
}

// The workqueue metrics of the HPA controller's queue, which both
// controllers name as kube-controller-manager does.
const (
	queueDepthMetric    = "workqueue_depth"
	queueDurationMetric = "workqueue_queue_duration_seconds"
	hpaQueueName        = "horizontalpodautoscaler"
)

// controllerMetrics are the figures the benchmark reads from a
// controller's /metrics.
type controllerMetrics struct {
	// reconciles counts the reconciles so far, every action and error
	// together.
	reconciles float64
	// queueWait and queueWaits are the sum and count of the HPA queue's
	// workqueue_queue_duration_seconds: how long HPAs waited in the queue
	// once due, until a worker took them.
	queueWait, queueWaits float64
	// queueDepth is the HPA queue's workqueue_depth: HPAs due and not yet
	// taken by a worker.
	queueDepth float64
}

// readControllerMetrics reads a controller's /metrics page. A controller
// whose HPA controller has not started serves no sample of these yet,
// which counts as zero.
func readControllerMetrics(r io.Reader) (controllerMetrics, error) {
	waitSum, waitCount := queueDurationMetric+"_sum", queueDurationMetric+"_count"
	samples, err := parseSamples(r, reconcileMetric, queueDepthMetric, waitSum, waitCount)
	if err != nil {
		return controllerMetrics{}, err
	}
	queue := map[string]string{"name": hpaQueueName}
	return controllerMetrics{
		reconciles: sumWhere(samples, reconcileMetric, nil),
		queueWait:  sumWhere(samples, waitSum, queue),
		queueWaits: sumWhere(samples, waitCount, queue),
		queueDepth: sumWhere(samples, queueDepthMetric, queue),
	}, nil
}

// scrape reads the controller's /metrics.
func (c *runningController) scrape(ctx context.Context) (controllerMetrics, error) {
	var sum controllerMetrics
	for _, url := range c.urls {
		body, err := httpGet(ctx, c.http, url)
		if err != nil {
			return controllerMetrics{}, err
		}
		m, err := readControllerMetrics(bytesReader(body))
		if err != nil {
			return controllerMetrics{}, err
		}
		sum = sum.plus(m)
	}
	return sum, nil
}

// plus adds the counters of two replicas; their queues' depths add too.
func (m controllerMetrics) plus(o controllerMetrics) controllerMetrics {
	return controllerMetrics{
		reconciles: m.reconciles + o.reconciles,
		queueWait:  m.queueWait + o.queueWait,
		queueWaits: m.queueWaits + o.queueWaits,
		queueDepth: m.queueDepth + o.queueDepth,
	}
}

// snapshot is every counter the benchmark reads, at one moment.
type snapshot struct {
	at time.Time
	// controllerCPU, apiServerCPU and adapterCPU (the metrics provider's)
	// are user+system CPU time of each process since it started.
	controllerCPU, apiServerCPU, adapterCPU time.Duration
	// replicaCPU is each controller process's part of controllerCPU.
	replicaCPU []time.Duration
	// watchBytes is what kube-apiserver has sent to watches
	// (apiserver_watch_events_sizes), every resource together.
	watchBytes float64
	// controllerMetrics are zero for the idle baseline.
	controllerMetrics
	requests map[string]float64
	fetches  float64
	// machineBusy and machineTotal are CPU ticks of the whole machine;
	// ownCPU is what the benchmark's processes used of it: the cluster,
	// the adapter, the controller and the benchmark itself.
	machineBusy, machineTotal int64
	ownCPU                    time.Duration
}

// probes reads the counters; controller is nil for the idle baseline.
type probes struct {
	kube    kubernetes.Interface
	adapter *adapter
	// provider answers the HPAs' metrics: the adapter, or metrics-server
	// in the CPU scenario.
	provider     metricsProvider
	apiServerPID int
	// clusterPIDs are the processes of the local cluster.
	clusterPIDs []int
}

func (p probes) take(ctx context.Context, controller *runningController) (snapshot, error) {
	s := snapshot{at: time.Now()}
	var err error
	if s.machineBusy, s.machineTotal, err = machineCPU(); err != nil {
		return s, err
	}
	pids := append([]int{os.Getpid(), p.adapter.proc.pid()}, p.clusterPIDs...)
	if p.provider.pid != p.adapter.proc.pid() {
		pids = append(pids, p.provider.pid)
	}
	if controller != nil {
		pids = append(pids, controller.pids()...)
	}
	for _, pid := range pids {
		cpu, err := cpuTime(pid)
		if err != nil {
			return s, err
		}
		s.ownCPU += cpu
	}
	if controller != nil {
		for _, pid := range controller.pids() {
			cpu, err := cpuTime(pid)
			if err != nil {
				return s, err
			}
			s.controllerCPU += cpu
			s.replicaCPU = append(s.replicaCPU, cpu)
		}
		if s.controllerMetrics, err = controller.scrape(ctx); err != nil {
			return s, err
		}
	}
	if s.apiServerCPU, err = cpuTime(p.apiServerPID); err != nil {
		return s, err
	}
	if s.adapterCPU, err = cpuTime(p.provider.pid); err != nil {
		return s, err
	}
	if s.requests, s.watchBytes, err = apiServerRequests(ctx, p.kube); err != nil {
		return s, err
	}
	s.fetches, err = p.provider.fetches(ctx)
	return s, err
}

// delta is what happened between two snapshots.
type delta struct {
	// from and to are the snapshots' times; elapsed lies between them.
	from, to                                time.Time
	elapsed                                 time.Duration
	controllerCPU, apiServerCPU, adapterCPU time.Duration
	// replicaCPU is each controller process's part of controllerCPU.
	replicaCPU []time.Duration
	// watchBytes were sent to watches by kube-apiserver.
	watchBytes float64
	reconciles float64
	// queueWait and queueWaits are the HPA queue's waits in the window;
	// queueDepth is its depth at the window's end.
	queueWait, queueWaits, queueDepth float64
	requests                          map[string]float64
	fetches                           float64
	// machineBusy is the fraction of all cores' time spent busy;
	// otherBusy the part of it that no process of the benchmark used.
	machineBusy, otherBusy float64
}

func (s snapshot) until(later snapshot) delta {
	d := delta{
		from:          s.at,
		to:            later.at,
		elapsed:       later.at.Sub(s.at),
		controllerCPU: later.controllerCPU - s.controllerCPU,
		apiServerCPU:  later.apiServerCPU - s.apiServerCPU,
		adapterCPU:    later.adapterCPU - s.adapterCPU,
		reconciles:    later.reconciles - s.reconciles,
		queueWait:     later.queueWait - s.queueWait,
		queueWaits:    later.queueWaits - s.queueWaits,
		queueDepth:    later.queueDepth,
		fetches:       later.fetches - s.fetches,
		requests:      map[string]float64{},
		watchBytes:    later.watchBytes - s.watchBytes,
	}
	for i := range min(len(s.replicaCPU), len(later.replicaCPU)) {
		d.replicaCPU = append(d.replicaCPU, later.replicaCPU[i]-s.replicaCPU[i])
	}
	if t := later.machineTotal - s.machineTotal; t > 0 {
		busy := later.machineBusy - s.machineBusy
		own := int64((later.ownCPU - s.ownCPU) * clockTicks / time.Second)
		d.machineBusy = float64(busy) / float64(t)
		d.otherBusy = max(0, float64(busy-own)/float64(t))
	}
	for k, v := range later.requests {
		if n := v - s.requests[k]; n != 0 {
			d.requests[k] = n
		}
	}
	return d
}

// lessBaseline removes from d's requests and kube-apiserver CPU what the
// idle cluster (kwok's heartbeats, the other controllers, the benchmark's
// own scrapes) did in a window as long, at the baseline's rate.
func (d delta) lessBaseline(base delta) delta {
	if base.elapsed <= 0 {
		return d
	}
	scale := d.elapsed.Seconds() / base.elapsed.Seconds()
	out := d
	out.requests = map[string]float64{}
	for k, v := range d.requests {
		out.requests[k] = v
	}
	for k, v := range base.requests {
		out.requests[k] -= v * scale
	}
	out.apiServerCPU -= time.Duration(float64(base.apiServerCPU) * scale)
	out.watchBytes -= base.watchBytes * scale
	return out
}
