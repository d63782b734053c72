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

package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// runner holds one run's environment and records.
type runner struct {
	opts  Options
	local *framework.Local
	env   *framework.Environment
	kube  kubernetes.Interface
	dyn   dynamic.Interface

	checker  *checker
	timeline timeline
	passes   *passLog
	metrics  *replicaMetrics

	killedReplicas atomic.Int64
	handScales     atomic.Int64
	cyclesMu       sync.Mutex
	cycles         []cycle
}

// Run starts the local environment (test/e2e/framework's: the control
// plane with kwok nodes, Prometheus and its exporter, the test metrics
// adapter, two hpa-controller-manager replicas), creates the workload,
// injects faults for Options.Duration and returns the report; it stops the
// environment before it returns.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx)
	if o.RepoRoot == "" {
		root, err := localcluster.FindRepoRoot()
		if err != nil {
			return nil, err
		}
		o.RepoRoot = root
	}
	if len(o.ControllerFlags) > 0 {
		wrapper, err := controllerWrapper(o.RepoRoot, o.ControllerFlags)
		if err != nil {
			return nil, err
		}
		// StartLocal takes the replicas' binary from there.
		if err := os.Setenv(framework.EnvControllerBinary, wrapper); err != nil {
			return nil, err
		}
	}
	local, err := framework.StartLocal(ctx, framework.LocalOptions{
		RepoRoot:            o.RepoRoot,
		Replicas:            2,
		Nodes:               o.Nodes,
		SyncPeriod:          o.SyncPeriod,
		MetricSharingWindow: min(5*time.Second, o.SyncPeriod),
		FeatureGates:        map[string]bool{"HPAExternalMetricFallback": true},
		Verbosity:           o.Verbosity,
		Prometheus:          true,
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := local.Stop(); err != nil {
			logger.Error(err, "Stopping the local environment")
		}
	}()
	env, err := framework.NewEnvironment(local.Config())
	if err != nil {
		return nil, err
	}
	r := &runner{opts: o, local: local, env: env, kube: env.Kube, dyn: env.Dynamic}
	r.checker = newChecker(o, r.timeline.all)
	return r.run(ctx)
}

func (r *runner) run(ctx context.Context) (*Report, error) {
	logger := klog.FromContext(ctx)
	o := r.opts
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	if err := r.checker.start(watchCtx, r.kube, r.dyn); err != nil {
		return nil, err
	}
	begin := time.Now()
	if err := r.createWorkload(ctx); err != nil {
		return nil, err
	}
	logger.Info("Workload created", "hpas", o.HPAs, "took", time.Since(begin).Round(time.Millisecond))
	if err := r.waitSettled(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	logger.Info("Workload settled", "took", time.Since(begin).Round(time.Millisecond))

	var ports []int
	for _, ep := range r.env.Config.Replicas {
		ports = append(ports, ep.MetricsPort)
	}
	r.metrics = newReplicaMetrics(ports)
	r.passes = newPassLog(r.env.Config.AdapterURL, r.local.Cluster().CABundle())
	go r.passes.run(watchCtx, 5*time.Second)
	go r.metrics.run(watchCtx, 15*time.Second)

	start := time.Now()
	chaosCtx, stopChaos := context.WithTimeout(ctx, o.Duration)
	defer stopChaos()
	var wg sync.WaitGroup
	for _, f := range []func(context.Context){r.inject, r.handScale, r.cycleFallback} {
		wg.Add(1)
		go func() { defer wg.Done(); f(chaosCtx) }()
	}
	<-chaosCtx.Done()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	logger.Info("Injections over, waiting for the last recovery")
	wg.Wait()
	// Two periods and a little for the last checks: every HPA passes, a
	// fallback engaged at the very end is seen.
	calm := time.Now()
	time.Sleep(2*o.SyncPeriod + 10*time.Second)
	end := time.Now()
	if err := r.passes.poll(ctx); err != nil {
		logger.Error(err, "Last poll of the adapter's fetch times")
	}
	r.metrics.scrape(ctx)
	return r.report(ctx, start, calm, end)
}

// controllerWrapper writes a script that runs the replicas' binary
// (framework.EnvControllerBinary's, else _output/bin's) with flags after
// the environment's: a later flag wins.
func controllerWrapper(root string, flags []string) (string, error) {
	binary := os.Getenv(framework.EnvControllerBinary)
	if binary == "" {
		binary = filepath.Join(root, "_output", "bin", "hpa-controller-manager")
	}
	if _, err := os.Stat(binary); err != nil {
		return "", err
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := "#!/bin/sh\nexec " + quote(binary) + ` "$@"`
	for _, f := range flags {
		script += " " + quote(f)
	}
	dir := filepath.Join(root, "_output", "chaos")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "hpa-controller-manager-wrapper.sh")
	return path, os.WriteFile(path, []byte(script+"\n"), 0o755)
}

// waitSettled waits until every HPA has a status, the hand and fallback
// Deployments their one ready replica, and the zero HPAs ScaledToZero.
func (r *runner) waitSettled(ctx context.Context, timeout time.Duration) error {
	logger := klog.FromContext(ctx)
	var missing string
	err := wait.PollUntilContextTimeout(ctx, 5*time.Second, timeout, true, func(context.Context) (bool, error) {
		c := r.checker
		c.mu.Lock()
		defer c.mu.Unlock()
		var noStatus, notReady, notZero int
		for name, g := range c.groups {
			h := c.hpas[name]
			if h == nil || condition(h, "ScalingActive") == nil {
				noStatus++
				continue
			}
			if g == GroupZero {
				if cond := condition(h, v2.ScaledToZero); cond == nil || cond.Status != "True" {
					notZero++
				}
				continue
			}
			d := c.deps[name]
			if d == nil || d.Status.ReadyReplicas != 1 || d.Status.Replicas != 1 {
				notReady++
			}
		}
		missing = fmt.Sprintf("%d HPAs without status, %d Deployments not at one ready replica, %d HPAs not ScaledToZero", noStatus, notReady, notZero)
		logger.Info("Settling", "state", missing)
		return noStatus+notReady+notZero == 0, nil
	})
	if err != nil {
		return fmt.Errorf("the workload did not settle (%s): %w", missing, err)
	}
	return nil
}

// patchMetrics merges data into the adapter's ConfigMap.
func (r *runner) patchMetrics(ctx context.Context, data map[string]string) error {
	patch, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		return err
	}
	_, err = r.kube.CoreV1().ConfigMaps(r.env.Config.MetricsNamespace).Patch(ctx, r.env.Config.MetricsConfigMap,
		types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// report runs the checks that need the whole run and builds the table.
func (r *runner) report(ctx context.Context, start, calm, end time.Time) (*Report, error) {
	o := r.opts
	ws := r.timeline.all()
	P := o.SyncPeriod
	rep := &Report{Options: o, Start: start, Calm: calm, End: end, Windows: ws, LogDir: r.local.Cluster().LogDir(),
		HandScales: r.handScales.Load()}

	// Passes.
	var totalPasses int
	for i := range o.HPAs {
		name := workloadName(i)
		g, n := r.passes.longestGap(name, start, end, ws)
		totalPasses += n
		if g.length() > 2*P {
			excused := ""
			if !g.excusedUntil.IsZero() {
				excused = ", counted from the recovery at " + g.excusedUntil.Format("15:04:05")
			}
			r.checker.violate(InvNoPass, name, "no pass from %s to %s (%v%s)", g.from.Format("15:04:05.000"), g.to.Format("15:04:05.000"), g.length().Round(time.Millisecond), excused)
		}
		if l := g.length(); l > rep.LongestGap {
			rep.LongestGap = l
		}
	}
	rep.Passes = totalPasses

	// Fallbacks.
	r.checker.finishFallback(ws)
	r.checkFallbackCycles(ws)
	r.cyclesMu.Lock()
	rep.FallbackCycles = len(r.cycles)
	r.cyclesMu.Unlock()

	// Restarts and panics, from the replicas' logs.
	statuses, err := r.env.Controllers.Control().Replicas(ctx)
	if err != nil {
		return nil, err
	}
	for _, st := range statuses {
		rep.Restarts += st.Starts - 1
	}
	rep.KilledReplicas = int(r.killedReplicas.Load())
	for _, ep := range r.env.Config.Replicas {
		exits, panics, err := readReplicaLog(ep.Name, ep.LogPath)
		if err != nil {
			return nil, err
		}
		for _, p := range panics {
			r.checker.violate(InvPanic, ep.Name, "%s", p)
		}
		for _, e := range exits {
			if inWindow(e.at, ws, r.env.Config.LeaseDuration.Duration+2*P) {
				rep.ExpectedExits = append(rep.ExpectedExits, fmt.Sprintf("%s at %s: %s", e.replica, e.at.Format("15:04:05"), e.how))
				continue
			}
			r.checker.violate(InvRestart, ep.Name, "exited at %s outside any disruption (%s); last lines:\n    %s", e.at.Format("15:04:05"), e.how, joinLines(e.before))
		}
	}

	// Every HPA ends with a status.
	c := r.checker
	c.mu.Lock()
	for name := range c.groups {
		if h := c.hpas[name]; h == nil || len(h.Status.Conditions) == 0 {
			c.violateLocked(InvLostStatus, name, "no status conditions at the end")
		}
	}
	rep.Violations = append([]Violation(nil), c.violations...)
	rep.Events = c.events
	rep.ZeroHeld = len(c.zeroSince)
	for _, e := range c.fallbackEngaged {
		rep.FallbackEngagements += len(e)
	}
	c.mu.Unlock()

	r.metrics.mu.Lock()
	rep.ControllerPasses = r.metrics.total
	rep.TwoLeaderScrapes, rep.Scrapes = r.metrics.twoLeaders, r.metrics.scrapes
	r.metrics.mu.Unlock()
	return rep, nil
}

func inWindow(t time.Time, ws []window, grace time.Duration) bool {
	for _, w := range ws {
		if !t.Before(w.start) && !t.After(w.end.Add(grace)) {
			return true
		}
	}
	return false
}

func joinLines(lines []string) string {
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "\n    "
		}
		out += l
	}
	return out
}

// WriteFiles writes the report as text and JSON under dir.
func (rep *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return errors.Join(
		os.WriteFile(filepath.Join(dir, "latest.txt"), []byte(rep.String()), 0o644),
		os.WriteFile(filepath.Join(dir, "latest.json"), data, 0o644),
	)
}
