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
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// PrometheusOptions say where a local Prometheus runs and what it scrapes.
type PrometheusOptions struct {
	// Binary is the prometheus that hack/build-upstream.sh builds into
	// _output/bin; required.
	Binary string
	// Dir holds its configuration and data; required. Under a cluster's
	// run directory, a Prometheus that survives its owner is one of the
	// cluster's LeftoverProcesses (its command line names Dir).
	Dir string
	// LogPath is its log; by default Dir/prometheus.log.
	LogPath string
	// Targets are the host:port it scrapes at /metrics.
	Targets []string
	// ScrapeInterval is how often it scrapes; 1s by default, so that a
	// value set on an exporter is queryable within a second or two.
	ScrapeInterval time.Duration
	// StartTimeout bounds a start until ready; 30s by default.
	StartTimeout time.Duration
	// StopGracePeriod is how long a stop waits after SIGTERM before it
	// kills; 5s by default.
	StopGracePeriod time.Duration
}

func (o PrometheusOptions) withDefaults() (PrometheusOptions, error) {
	if o.Binary == "" || o.Dir == "" {
		return o, errors.New("prometheus: Binary and Dir are required")
	}
	if o.LogPath == "" {
		o.LogPath = filepath.Join(o.Dir, "prometheus.log")
	}
	if o.ScrapeInterval == 0 {
		o.ScrapeInterval = time.Second
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.StopGracePeriod == 0 {
		o.StopGracePeriod = 5 * time.Second
	}
	return o, nil
}

// Prometheus is a Prometheus server on loopback that a test can stop,
// start again on the same port with the same data, and pause (SIGSTOP: it
// accepts connections and answers nothing, like a server that hangs). Its
// methods are safe for concurrent use.
type Prometheus struct {
	opts    PrometheusOptions
	port    int
	spawner *Spawner

	mu     sync.Mutex
	proc   *process
	paused bool
	closed bool
}

// StartPrometheus writes the configuration, starts Prometheus on a free
// loopback port and waits until it is ready. On error nothing is left
// running.
func StartPrometheus(ctx context.Context, opts PrometheusOptions) (*Prometheus, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(opts.Dir, "data"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(prometheusConfigPath(opts.Dir), []byte(prometheusConfig(opts)), 0o644); err != nil {
		return nil, err
	}
	ports, err := FreePorts(1)
	if err != nil {
		return nil, err
	}
	p := &Prometheus{opts: opts, port: ports[0], spawner: NewSpawner()}
	if err := p.Start(ctx); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	return p, nil
}

func prometheusConfigPath(dir string) string { return filepath.Join(dir, "prometheus.yml") }

// prometheusConfig scrapes the targets, with a time-out as long as the
// interval (Prometheus refuses a longer one).
func prometheusConfig(o PrometheusOptions) string {
	quoted := make([]string, len(o.Targets))
	for i, t := range o.Targets {
		quoted[i] = strconv.Quote(t)
	}
	return fmt.Sprintf(`global:
  scrape_interval: %[1]s
  scrape_timeout: %[1]s
scrape_configs:
- job_name: exporter
  static_configs:
  - targets: [%[2]s]
`, o.ScrapeInterval, strings.Join(quoted, ", "))
}

// URL is the base URL of Prometheus's HTTP API; it stays the same across
// Stop and Start.
func (p *Prometheus) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", p.port) }

// LogPath is Prometheus's log, every start appended.
func (p *Prometheus) LogPath() string { return p.opts.LogPath }

// Start starts Prometheus when it is not running, and waits until it is
// ready.
func (p *Prometheus) Start(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("prometheus: closed")
	}
	if p.proc != nil {
		return nil
	}
	args := []string{
		"--config.file=" + prometheusConfigPath(p.opts.Dir),
		"--storage.tsdb.path=" + filepath.Join(p.opts.Dir, "data"),
		"--web.listen-address=" + fmt.Sprintf("127.0.0.1:%d", p.port),
		// A test's data is worthless after an hour; keeps the head small.
		"--storage.tsdb.retention.time=1h",
	}
	proc, err := startProcess(ctx, p.spawner, "prometheus", p.opts.Binary, p.opts.LogPath, args)
	if err != nil {
		return err
	}
	p.proc, p.paused = proc, false
	ctx, cancel := context.WithTimeout(ctx, p.opts.StartTimeout)
	defer cancel()
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := proc.running(); err != nil {
			return false, err
		}
		return p.ready(ctx), nil
	})
	if err != nil {
		return fmt.Errorf("prometheus did not get ready (log %s): %w", p.opts.LogPath, err)
	}
	klog.FromContext(ctx).V(2).Info("Prometheus is ready", "url", p.URL(), "pid", proc.pid())
	return nil
}

// ready asks /-/ready, which answers 200 once the TSDB is open.
func (p *Prometheus) ready(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL()+"/-/ready", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop stops Prometheus (SIGTERM, then SIGKILL after the grace period) and
// waits until it has exited: its port refuses connections, as a server
// that is down. A paused Prometheus is resumed first so that it can stop
// cleanly.
func (p *Prometheus) Stop(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopLocked(ctx)
}

func (p *Prometheus) stopLocked(ctx context.Context) error {
	if p.proc == nil {
		return nil
	}
	if p.paused {
		_ = syscall.Kill(-p.proc.pid(), syscall.SIGCONT)
	}
	err := p.proc.stop(ctx, p.opts.StopGracePeriod)
	p.proc, p.paused = nil, false
	return err
}

// Pause stops the process with SIGSTOP: connections are accepted by the
// kernel and never answered, as with a server that hangs.
func (p *Prometheus) Pause() error { return p.signal(syscall.SIGSTOP, true) }

// Resume continues a paused Prometheus.
func (p *Prometheus) Resume() error { return p.signal(syscall.SIGCONT, false) }

func (p *Prometheus) signal(sig syscall.Signal, paused bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc == nil {
		return errors.New("prometheus is not running")
	}
	if err := syscall.Kill(-p.proc.pid(), sig); err != nil {
		return fmt.Errorf("sending %v to prometheus: %w", sig, err)
	}
	p.paused = paused
	if paused {
		return waitStopped(p.proc.pid())
	}
	return nil
}

// waitStopped returns once every thread of the process pid is stopped:
// SIGSTOP takes effect after kill returns, and a request answered in
// between would make a pause look like no pause at all.
func waitStopped(pid int) error {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if stopped, err := allThreadsStopped(pid); err != nil || stopped {
			return err
		}
	}
	return fmt.Errorf("prometheus (pid %d) did not stop within 5s of SIGSTOP", pid)
}

func allThreadsStopped(pid int) (bool, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false, fmt.Errorf("listing the threads of pid %d: %v", pid, err)
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(task)
		if err != nil {
			// A thread that ended is not running either.
			continue
		}
		// The state follows the command name, which is in parentheses.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 || i+2 >= len(stat) || (stat[i+2] != 'T' && stat[i+2] != 't') {
			return false, nil
		}
	}
	return true, nil
}

// Close stops Prometheus for good.
func (p *Prometheus) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	err := p.stopLocked(context.Background())
	p.spawner.Close()
	return err
}
