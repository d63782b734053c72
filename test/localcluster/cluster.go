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
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// Cluster is a running local control plane. Its methods are safe for
// concurrent use. Stop it when it is no longer needed; later calls of Stop
// wait for the first and return its result.
type Cluster struct {
	opts   Options
	layout layout
	creds  credentials
	logger logr.Logger

	restConfig *rest.Config
	client     kubernetes.Interface
	dynamic    dynamic.Interface

	spawner *Spawner
	// mu guards procs, pgids and stopped. A restart holds it while it
	// replaces a component, so that no wait takes the stopped process for
	// a component that died.
	mu sync.Mutex
	// procs are the components in start order; Stop ends them in reverse.
	procs []*process
	// pgids outlive procs' processes, for LeftoverProcesses after Stop.
	pgids []int
	// starts counts the processes of each component so far.
	starts    map[string]int
	stopped   bool
	nodeNames []string

	stopOnce sync.Once
	stopErr  error
}

// Start starts a cluster and returns once every component is ready, the
// kwok nodes are Ready, and the CRDs of Options.CRDDir are Established. On
// error nothing of the cluster is left running. ctx bounds the start only
// (as does Options.StartTimeout): the cluster runs until Stop.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	logger := klog.LoggerWithName(klog.FromContext(ctx), "localcluster")
	ctx = klog.NewContext(ctx, logger)
	if err := ensureBinaries(ctx, opts); err != nil {
		return nil, err
	}
	if err := checkVersionSkew(ctx, opts); err != nil {
		return nil, err
	}
	// The ports are free when chosen but not reserved: another process may
	// take one before its component binds it. That is worth one more try
	// on fresh ports, not a failed test.
	const attempts = 2
	for attempt := 1; ; attempt++ {
		c, err := startOnce(ctx, opts)
		if err == nil || attempt == attempts || !strings.Contains(err.Error(), "address already in use") {
			return c, err
		}
		logger.Info("A port was taken before its component bound it, starting again on other ports", "err", err)
	}
}

// startOnce is one attempt of Start in a new run directory.
func startOnce(ctx context.Context, opts Options) (*Cluster, error) {
	begin := time.Now()
	c, err := prepare(ctx, opts, begin)
	if err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx).WithValues("run", c.layout.runDir)
	c.logger = logger
	ctx = klog.NewContext(ctx, logger)

	startCtx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	if err := c.start(startCtx); err != nil {
		stopErr := c.Stop()
		return nil, errors.Join(fmt.Errorf("starting the local cluster (logs in %s): %w", c.layout.logDir, err), stopErr)
	}
	logger.Info("Local cluster is ready", "kubeconfig", c.layout.kubeconfig, "took", time.Since(begin).Round(time.Millisecond))
	return c, nil
}

// prepare writes everything the components read before any of them starts:
// the run directory, certificates, kubeconfig and kwok's configuration.
func prepare(ctx context.Context, opts Options, now time.Time) (*Cluster, error) {
	pruneRuns(ctx, opts.OutputDir, opts.KeepRuns, now)
	l, err := newLayout(opts.OutputDir, now)
	if err != nil {
		return nil, err
	}
	creds, err := generatePKI(l)
	if err != nil {
		return nil, fmt.Errorf("generating certificates: %w", err)
	}
	if err := writeKubeconfig(l, creds); err != nil {
		return nil, err
	}
	moduleDir, err := kwokModuleDir(ctx, opts.RepoRoot)
	if err != nil {
		return nil, err
	}
	kwok, err := kwokConfig(moduleDir)
	if err != nil {
		return nil, fmt.Errorf("generating kwok's configuration: %w", err)
	}
	if err := os.WriteFile(l.kwokConfig, kwok, 0o644); err != nil {
		return nil, err
	}
	restConfig := newRESTConfig(l, creds)
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	return &Cluster{
		opts:       opts,
		layout:     l,
		creds:      creds,
		logger:     klog.FromContext(ctx),
		restConfig: restConfig,
		client:     client,
		dynamic:    dyn,
		spawner:    NewSpawner(),
		starts:     map[string]int{},
	}, nil
}

// start brings the components up in dependency order. Components that
// only need the apiserver start together, and readiness is awaited once.
func (c *Cluster) start(ctx context.Context) error {
	l := c.layout
	if err := c.startComponent(ctx, binEtcd, etcdFlags(l)); err != nil {
		return err
	}
	if err := c.waitFor(ctx, "etcd to be healthy", c.etcdHealthy); err != nil {
		return err
	}
	if err := c.startComponent(ctx, binAPIServer, append(apiServerFlags(l, c.opts), c.opts.ExtraAPIServerFlags...)); err != nil {
		return err
	}
	if err := c.waitFor(ctx, "kube-apiserver to be ready", c.apiServerReady); err != nil {
		return err
	}
	if err := c.startComponent(ctx, binControllerManager,
		append(controllerManagerFlags(l, c.opts), c.opts.ExtraControllerManagerFlags...)); err != nil {
		return err
	}
	if err := c.startComponent(ctx, binScheduler, append(schedulerFlags(l), c.opts.ExtraSchedulerFlags...)); err != nil {
		return err
	}
	if err := c.startComponent(ctx, binKwok, kwokFlags(l)); err != nil {
		return err
	}
	if err := c.createNodes(ctx); err != nil {
		return err
	}
	if c.opts.MetricsServer {
		if err := c.startMetricsServer(ctx); err != nil {
			return err
		}
	}
	if !c.opts.NoCRDs {
		if err := c.InstallCRDs(ctx, c.opts.CRDDir); err != nil {
			return err
		}
	}
	steps := []readyStep{
		{"kube-controller-manager to be healthy", c.healthz(l.controllerManagerPort)},
		{"kube-scheduler to be healthy", c.healthz(l.schedulerPort)},
		{"the kwok nodes to be Ready", c.nodesReady},
		{"the default ServiceAccount (kube-controller-manager at work)", c.defaultServiceAccountExists("default")},
	}
	if c.opts.MetricsServer {
		steps = append(steps, readyStep{"APIService " + MetricsVersion + "." + MetricsGroup + " to be Available", c.apiServiceAvailable(MetricsGroup, MetricsVersion)})
	}
	for _, step := range steps {
		if err := c.waitFor(ctx, step.what, step.check); err != nil {
			return err
		}
	}
	return nil
}

// readyStep is one wait of start: what it waits for, and its check.
type readyStep struct {
	what  string
	check func(context.Context) (bool, error)
}

func (c *Cluster) startComponent(ctx context.Context, name string, args []string) error {
	p, err := startProcess(ctx, c.spawner, name, c.binary(name), c.layout.logPath(name), args)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.procs = append(c.procs, p)
	c.pgids = append(c.pgids, p.pid())
	c.starts[name]++
	return nil
}

// components returns the running components, in start order.
func (c *Cluster) components() []*process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.procs)
}

// Stop ends every component, last started first, each with its whole
// process group, and deletes etcd's data unless Options.KeepEtcdData.
// Logs stay in LogDir. Calls after the first wait for it and return its
// result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(c.stop)
	return c.stopErr
}

func (c *Cluster) stop() {
	ctx := klog.NewContext(context.Background(), c.logger)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	var errs []error
	for i := len(c.procs) - 1; i >= 0; i-- {
		errs = append(errs, c.procs[i].stop(ctx, c.opts.StopGracePeriod))
	}
	c.spawner.Close()
	if !c.opts.KeepEtcdData {
		errs = append(errs, os.RemoveAll(c.layout.etcdDataDir))
	}
	c.stopErr = errors.Join(errs...)
	c.logger.Info("Local cluster stopped", "logs", c.layout.logDir)
}
