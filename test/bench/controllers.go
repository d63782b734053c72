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
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/options"
)

// controllerSpec says how to run one controller under test and where it
// serves its Prometheus metrics.
type controllerSpec struct {
	name   string
	binary string
	// args are the flags for a metrics port and a sync period.
	args func(port int, sync time.Duration) []string
	// metricsURL is where /metrics answers, over http for kube-hpa and
	// https (a self-signed loopback certificate) for kube-controller-manager.
	metricsURL func(port int) string
	// replicas is how many processes run the controller together (kube-hpa
	// with --sharded); 0 means one.
	replicas int
	// extended says the controller reconciles kube-hpa's extended kind,
	// whose External metrics may have a fallback (slowfallback.go).
	extended bool
}

// hpaFlags are the flags both controllers get, with the names and meaning
// of kube-controller-manager's.
func (o Options) hpaFlags(sync time.Duration) []string {
	return []string{
		"--horizontal-pod-autoscaler-sync-period=" + sync.String(),
		"--concurrent-horizontal-pod-autoscaler-syncs=" + strconv.Itoa(o.Workers),
		"--kube-api-qps=" + strconv.FormatFloat(o.QPS, 'f', -1, 64),
		"--kube-api-burst=" + strconv.Itoa(o.Burst),
		"--leader-elect=false",
	}
}

// metricsAPIFlags are kube-hpa's limits of the metrics APIs, which
// kube-controller-manager does not have (its metrics clients take
// --kube-api-qps each): above kube-hpa's defaults, the run's own client
// limits, so that neither controller is throttled where the run means
// none to be; below them (the default client limits), kube-hpa's
// defaults, as an operator gets them.
func (o Options) metricsAPIFlags() []string {
	if o.QPS <= options.DefaultMetricsAPIQPS && o.Burst <= options.DefaultMetricsAPIBurst {
		return nil
	}
	return []string{
		"--metrics-api-qps=" + strconv.FormatFloat(max(o.QPS, options.DefaultMetricsAPIQPS), 'f', -1, 64),
		"--metrics-api-burst=" + strconv.Itoa(max(o.Burst, options.DefaultMetricsAPIBurst)),
	}
}

// controllerSpecs returns the specs of the controllers, each with a
// kubeconfig file of its own (a copy of the admin's, so both act with the
// same rights and neither is throttled by priority and fairness).
func controllerSpecs(o Options, adminKubeconfig, dir string) (map[string]controllerSpec, error) {
	admin, err := os.ReadFile(adminKubeconfig)
	if err != nil {
		return nil, err
	}
	kubeconfig := func(name string) (string, error) {
		path := filepath.Join(dir, name+".kubeconfig")
		return path, os.WriteFile(path, admin, 0o600)
	}
	upstreamKubeconfig, err := kubeconfig(Upstream)
	if err != nil {
		return nil, err
	}
	oursKubeconfig, err := kubeconfig(KubeHPA)
	if err != nil {
		return nil, err
	}
	// ours runs hpa-controller-manager; the side-by-side specs add
	// --manage-native-hpas (the workload is native), the sync period mix
	// does not (its HPAs are the extended kind).
	ours := func(name string, extra ...string) controllerSpec {
		extra = append(extra, o.metricsAPIFlags()...)
		extra = append(extra, o.KubeHPAFlags...)
		return controllerSpec{
			name:   name,
			binary: o.ControllerBinary,
			args: func(port int, sync time.Duration) []string {
				return append(append([]string{
					"--kubeconfig=" + oursKubeconfig,
					"--bind-address=127.0.0.1",
					"--port=" + strconv.Itoa(port),
					// Scraped over --port: the secure port's delegation
					// (a watch of the authentication ConfigMap) would add
					// API requests that earlier runs did not make.
					"--secure-port=0",
				}, o.hpaFlags(sync)...), extra...)
			},
			metricsURL: func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d/metrics", port) },
			extended:   true,
		}
	}
	upstream := func(name string, extra ...string) controllerSpec {
		return controllerSpec{
			name:   name,
			binary: o.UpstreamBinary,
			args: func(port int, sync time.Duration) []string {
				return append(append([]string{
					"--kubeconfig=" + upstreamKubeconfig,
					"--controllers=horizontalpodautoscaling",
					"--bind-address=127.0.0.1",
					"--secure-port=" + strconv.Itoa(port),
					// Anonymous scrapes of /metrics, with no TokenReview or
					// SubjectAccessReview that would add to the API
					// requests being measured.
					"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
				}, o.hpaFlags(sync)...), extra...)
			},
			metricsURL: func(port int) string { return fmt.Sprintf("https://127.0.0.1:%d/metrics", port) },
		}
	}
	specs := map[string]controllerSpec{
		Upstream:         upstream(Upstream),
		UpstreamJSON:     upstream(UpstreamJSON, "--kube-api-content-type=application/json"),
		KubeHPA:          ours(KubeHPA, "--manage-native-hpas"),
		KubeHPANoSharing: ours(KubeHPANoSharing, "--manage-native-hpas", "--horizontal-pod-autoscaler-external-metric-sharing-window=0"),
		mixGatesOff:      ours(mixGatesOff),
		mixGatesOn:       ours(mixGatesOn, proposalGates),
	}
	for _, n := range o.ScalingReplicas {
		// The Leases go in "default", named after the controller, so that
		// no two measurements share a group.
		name := ShardedKubeHPA(n)
		spec := ours(name, "--manage-native-hpas", "--sharded", "--shards="+strconv.Itoa(scalingShards),
			"--leader-elect=true", "--leader-elect-resource-namespace=default", "--leader-elect-resource-name="+name)
		spec.replicas = n
		specs[name] = spec
	}
	return specs, nil
}

// runningController is a controller under test: one process, or the
// replicas of a sharded kube-hpa, measured together.
type runningController struct {
	spec  controllerSpec
	procs []*process
	urls  []string
	http  *http.Client
	// started is when it first served its metrics: where a warm-up
	// starts counting.
	started time.Time
}

// startController starts spec with the given sync period (each replica
// logging to logPath, numbered after the first) and waits until every
// replica serves its metrics.
func startController(ctx context.Context, spec controllerSpec, sync time.Duration, logPath string) (*runningController, error) {
	c := &runningController{spec: spec, http: &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{
			InsecureSkipVerify: true, //nolint:gosec // loopback, self-signed by kube-controller-manager
			MinVersion:         tls.VersionTLS12,
		}},
	}}
	for i := range max(spec.replicas, 1) {
		port, err := freePort()
		if err != nil {
			c.stop()
			return nil, err
		}
		path := logPath
		if i > 0 {
			path = strings.TrimSuffix(logPath, ".log") + "-" + strconv.Itoa(i) + ".log"
		}
		proc, err := startProcess(spec.name, spec.binary, path, spec.args(port, sync))
		if err != nil {
			c.stop()
			return nil, err
		}
		c.procs, c.urls = append(c.procs, proc), append(c.urls, spec.metricsURL(port))
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.alive(); err != nil {
			return false, err
		}
		_, err := c.reconciles(ctx)
		return err == nil, nil
	})
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("waiting for %s to serve its metrics: %w", spec.name, err)
	}
	c.started = time.Now()
	return c, nil
}

// pids are the controller's processes.
func (c *runningController) pids() []int {
	out := make([]int, len(c.procs))
	for i, p := range c.procs {
		out[i] = p.pid()
	}
	return out
}

// alive returns the error of the first process that has exited.
func (c *runningController) alive() error {
	for _, p := range c.procs {
		if err := p.alive(); err != nil {
			return err
		}
	}
	return nil
}

// perReplica reads one figure of each process (its RSS), and the largest.
func (c *runningController) perReplica(read func(pid int) (int64, error)) (largest int64, each []int64, err error) {
	for _, pid := range c.pids() {
		v, err := read(pid)
		if err != nil {
			return 0, nil, err
		}
		largest, each = max(largest, v), append(each, v)
	}
	return largest, each, nil
}

// reconcileMetric is upstream's counter of HPA reconciles, which kube-hpa
// keeps under the same name.
const reconcileMetric = "horizontal_pod_autoscaler_controller_reconciliations_total"

// reconciles is the controller's count of reconciles so far, every action
// and error together (see scrape).
func (c *runningController) reconciles(ctx context.Context) (float64, error) {
	m, err := c.scrape(ctx)
	return m.reconciles, err
}

func (c *runningController) stop() {
	for _, p := range c.procs {
		p.stop(10 * time.Second)
	}
}
