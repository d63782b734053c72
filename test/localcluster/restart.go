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
	"time"

	"k8s.io/klog/v2"
)

// ComponentStatus describes the current process of one component.
type ComponentStatus struct {
	Name      string    `json:"name"`
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
	// Starts counts the processes of the component so far: 1 until the
	// first restart.
	Starts int `json:"starts"`
}

// Component reports the current process of component (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler or kwok).
func (c *Cluster) Component(component string) (ComponentStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, err := c.componentIndex(component)
	if err != nil {
		return ComponentStatus{}, err
	}
	return c.statusOf(i), nil
}

// componentIndex finds component in procs; c.mu must be held.
func (c *Cluster) componentIndex(component string) (int, error) {
	for i, p := range c.procs {
		if p.name == component {
			return i, nil
		}
	}
	return -1, fmt.Errorf("the cluster has no component %q", component)
}

// statusOf describes procs[i]; c.mu must be held.
func (c *Cluster) statusOf(i int) ComponentStatus {
	p := c.procs[i]
	return ComponentStatus{Name: p.name, PID: p.pid(), StartedAt: p.startedAt, Starts: c.starts[p.name]}
}

// RestartControllerManager restarts kube-controller-manager, as a node
// reboot or an upgrade of the control plane does: SIGTERM (its process
// group is killed after Options.StopGracePeriod), then a new process with
// the same flags, its output appended to the same log. It returns once
// the new process serves /healthz. Everything the component kept in
// memory (an HPA controller's stabilization and rate-limit history, its
// informers' caches) is gone; what it wrote to the API server stays.
func (c *Cluster) RestartControllerManager(ctx context.Context) (ComponentStatus, error) {
	return c.restart(ctx, binControllerManager, c.healthz(c.layout.controllerManagerPort))
}

// restart replaces component's process and waits for ready. Waits of
// other callers block while the component is down rather than fail on it.
func (c *Cluster) restart(ctx context.Context, component string, ready func(context.Context) (bool, error)) (ComponentStatus, error) {
	logger := klog.FromContext(ctx)
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return ComponentStatus{}, errors.New("the cluster is stopped")
	}
	i, err := c.componentIndex(component)
	if err != nil {
		c.mu.Unlock()
		return ComponentStatus{}, err
	}
	old := c.procs[i]
	begin := time.Now()
	if err := old.stop(ctx, c.opts.StopGracePeriod); err != nil {
		c.mu.Unlock()
		return ComponentStatus{}, err
	}
	p, err := startProcess(ctx, c.spawner, component, old.binary, old.logPath, old.args)
	if err != nil {
		c.mu.Unlock()
		return ComponentStatus{}, err
	}
	c.procs[i] = p
	c.pgids = append(c.pgids, p.pid())
	c.starts[component]++
	status := c.statusOf(i)
	c.mu.Unlock()
	logger.Info("Restarted component", "component", component, "oldPID", old.pid(), "pid", p.pid(),
		"down", time.Since(begin).Round(time.Millisecond))
	if err := c.waitFor(ctx, component+" to be healthy after its restart", ready); err != nil {
		return status, err
	}
	return status, nil
}
