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
	"syscall"
)

// KillAPIServer kills kube-apiserver's process group with SIGKILL, as a
// crashed or OOM-killed apiserver goes (no graceful shutdown, every watch
// and connection cut), then starts it again with the same flags and returns
// once it is ready. Clients see connection errors in between.
func (c *Cluster) KillAPIServer(ctx context.Context) (ComponentStatus, error) {
	if _, err := c.SignalComponent(binAPIServer, syscall.SIGKILL); err != nil {
		return ComponentStatus{}, err
	}
	return c.restart(ctx, binAPIServer, c.apiServerReady)
}

// SignalComponent sends sig to the process group of component (etcd,
// kube-apiserver, ...) and returns the pid signalled: SIGSTOP and SIGCONT
// stall and resume it (a hung disk, a paused VM), SIGKILL ends it. A
// component ended so is not restarted by itself: see KillAPIServer.
func (c *Cluster) SignalComponent(component string, sig syscall.Signal) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return 0, errors.New("the cluster is stopped")
	}
	i, err := c.componentIndex(component)
	if err != nil {
		return 0, err
	}
	pid := c.procs[i].pid()
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return pid, fmt.Errorf("sending %v to %s (pid %d): %w", sig, component, pid, err)
	}
	return pid, nil
}

// APIServerReady reports whether kube-apiserver answers /readyz.
func (c *Cluster) APIServerReady(ctx context.Context) bool {
	ok, _ := c.apiServerReady(ctx)
	return ok
}
