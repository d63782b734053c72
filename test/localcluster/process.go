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
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// process is one running component of the cluster.
type process struct {
	name    string
	logPath string
	// binary and args are what it was started with, for a restart.
	binary    string
	args      []string
	startedAt time.Time
	cmd       *exec.Cmd
	logFile   *os.File
	// exited is closed once the process has been waited for; err then holds
	// how it ended.
	exited chan struct{}
	err    error
	// down is set when a test ended the process on purpose (a fault such
	// as KillMetricsServer): its exit is then no failure of the cluster.
	down atomic.Bool
}

// startProcess starts binary with args, its output going to logPath.
func startProcess(ctx context.Context, s *Spawner, name, binary, logPath string, args []string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// Not CommandContext: the cluster outlives the context it was started
	// with, and Stop ends it with a grace period instead of a SIGKILL.
	cmd := exec.Command(binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Components read no input; give them /dev/null rather than ours.
	cmd.Stdin = nil
	fmt.Fprintf(logFile, "# %s %s\n", binary, strings.Join(args, " "))
	if err := s.Start(cmd); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{
		name: name, logPath: logPath, binary: binary, args: args, startedAt: time.Now(),
		cmd: cmd, logFile: logFile, exited: make(chan struct{}),
	}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.exited)
	}()
	klog.FromContext(ctx).V(2).Info("Started component", "component", name, "pid", cmd.Process.Pid, "log", logPath)
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// running reports an error when the process has already exited, with the
// end of its log, which is where a component says why it gave up.
func (p *process) running() error {
	if p.down.Load() {
		return nil
	}
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited early (%v); end of %s:\n%s", p.name, p.err, p.logPath, tailFile(p.logPath, 20))
	default:
		return nil
	}
}

// stop sends SIGTERM to the process group, waits up to grace, then kills
// the group. It then kills the group once more, since a child that the
// component forked may outlive the leader's graceful exit.
func (p *process) stop(ctx context.Context, grace time.Duration) error {
	logger := klog.FromContext(ctx)
	pgid := p.pid() // the leader of its own group, see Spawner.Start
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		logger.Info("Component did not stop in time, killing it", "component", p.name, "grace", grace)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing the process group of %s: %w", p.name, err)
	}
	logger.V(2).Info("Stopped component", "component", p.name, "result", fmt.Sprint(p.err))
	return nil
}

// tailFile returns the last n lines of path, for error messages.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
