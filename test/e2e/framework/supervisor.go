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

package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// Restart back-off of the Supervisor: a replica that keeps exiting soon
// after its start waits longer each time, like a crash-looping container,
// but never so long that a spec waiting for it times out.
const (
	minRestartBackoff = time.Second
	maxRestartBackoff = 8 * time.Second
	// stableRun is how long a process must run for its next exit to be
	// treated as a one-off rather than a crash loop.
	stableRun = 30 * time.Second
	// stopGrace is how long a process gets after SIGTERM before its group
	// is killed.
	stopGrace = 5 * time.Second
)

// ProcessSpec is one program the Supervisor keeps running.
type ProcessSpec struct {
	// Name names the process in logs and errors, e.g.
	// hpa-controller-manager-0.
	Name    string
	Binary  string
	Args    []string
	LogPath string
}

// ReplicaStatus is what the Supervisor reports about one process.
type ReplicaStatus struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	// PID is the current process, 0 while none runs.
	PID int `json:"pid"`
	// Held is true while the replica is stopped on purpose (Hold) and
	// will not be restarted until Release.
	Held bool `json:"held"`
	// Starts counts the processes started so far.
	Starts int `json:"starts"`
	// LastExit says how the previous process ended.
	LastExit  string    `json:"lastExit,omitempty"`
	StartedAt time.Time `json:"startedAt"`
}

// Supervisor runs a fixed set of processes and restarts any that exits,
// as a Deployment's ReplicaSet and the kubelet would for a pod, unless the
// replica is held. Every process runs in a process group of its own with a
// parent-death signal, and Stop ends them all.
type Supervisor struct {
	logger   logr.Logger
	spawner  *localcluster.Spawner
	members  []*member
	stopping chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// member is one supervised replica; mu guards every field below it.
type member struct {
	index int
	spec  ProcessSpec

	mu        sync.Mutex
	cmd       *exec.Cmd
	exited    chan struct{}
	held      bool
	starts    int
	lastExit  string
	startedAt time.Time
	// signalled marks an exit that a spec asked for (Signal), which is a
	// restart rather than a crash and so resets the back-off.
	signalled bool
	// wake interrupts the wait of a held or backing-off replica.
	wake chan struct{}
}

// StartSupervisor starts every process and returns without waiting for
// them to be ready.
func StartSupervisor(logger logr.Logger, specs []ProcessSpec) *Supervisor {
	s := &Supervisor{logger: logger, spawner: localcluster.NewSpawner(), stopping: make(chan struct{})}
	for i, spec := range specs {
		m := &member{index: i, spec: spec, wake: make(chan struct{}, 1)}
		s.members = append(s.members, m)
		s.wg.Add(1)
		go s.run(m)
	}
	return s
}

// run is the restart loop of one replica.
func (s *Supervisor) run(m *member) {
	defer s.wg.Done()
	backoff := minRestartBackoff
	for {
		if !s.waitRunnable(m) {
			return
		}
		begin := time.Now()
		exited, err := m.start(s.spawner)
		if err != nil {
			s.logger.Error(err, "Starting a supervised process", "process", m.spec.Name)
		} else {
			select {
			case <-exited:
				s.logger.Info("Supervised process exited", "process", m.spec.Name, "result", m.status().LastExit)
			case <-s.stopping:
				m.terminate()
				return
			}
		}
		m.mu.Lock()
		signalled := m.signalled
		m.signalled = false
		m.mu.Unlock()
		if signalled || time.Since(begin) > stableRun {
			backoff = minRestartBackoff
		}
		delay := backoff
		backoff = min(2*backoff, maxRestartBackoff)
		select {
		case <-time.After(delay):
		case <-m.wake:
		case <-s.stopping:
			return
		}
	}
}

// waitRunnable blocks while the replica is held; false means the
// Supervisor is stopping.
func (s *Supervisor) waitRunnable(m *member) bool {
	for {
		m.mu.Lock()
		held := m.held
		m.mu.Unlock()
		if !held {
			select {
			case <-s.stopping:
				return false
			default:
				return true
			}
		}
		select {
		case <-m.wake:
		case <-s.stopping:
			return false
		}
	}
}

// start starts a new process of the replica; the returned channel closes
// when it has exited and been waited for.
func (m *member) start(sp *localcluster.Spawner) (<-chan struct{}, error) {
	logFile, err := os.OpenFile(m.spec.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(m.spec.Binary, m.spec.Args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	m.mu.Lock()
	starts := m.starts + 1
	m.mu.Unlock()
	fmt.Fprintf(logFile, "# start %d at %s: %s %s\n", starts, time.Now().Format(time.RFC3339Nano),
		m.spec.Binary, strings.Join(m.spec.Args, " "))
	if err := sp.Start(cmd); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", m.spec.Name, err)
	}
	exited := make(chan struct{})
	m.mu.Lock()
	m.cmd, m.exited, m.starts, m.startedAt = cmd, exited, starts, time.Now()
	m.mu.Unlock()
	go func() {
		err := cmd.Wait()
		fmt.Fprintf(logFile, "# exit of start %d at %s: %v\n", starts, time.Now().Format(time.RFC3339Nano), describeExit(err))
		_ = logFile.Close()
		m.mu.Lock()
		m.cmd, m.lastExit = nil, describeExit(err)
		m.mu.Unlock()
		close(exited)
	}()
	return exited, nil
}

func describeExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// signal sends sig to the process group of the current process and
// returns its pid, or 0 when none runs.
func (m *member) signal(sig syscall.Signal) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil {
		return 0, nil
	}
	pid := m.cmd.Process.Pid // the leader of its own group
	if sig == syscall.SIGKILL || sig == syscall.SIGTERM {
		m.signalled = true
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return pid, fmt.Errorf("sending %v to %s (pid %d): %w", sig, m.spec.Name, pid, err)
	}
	return pid, nil
}

// terminate ends the current process gracefully, then its whole group.
func (m *member) terminate() {
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
	// Anything the process forked and left behind goes with its group.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

func (m *member) status() ReplicaStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := ReplicaStatus{Index: m.index, Name: m.spec.Name, Held: m.held, Starts: m.starts,
		LastExit: m.lastExit, StartedAt: m.startedAt}
	if m.cmd != nil {
		st.PID = m.cmd.Process.Pid
	}
	return st
}

func (s *Supervisor) member(i int) (*member, error) {
	if i < 0 || i >= len(s.members) {
		return nil, fmt.Errorf("no replica %d (there are %d)", i, len(s.members))
	}
	return s.members[i], nil
}

// Status reports every replica.
func (s *Supervisor) Status() []ReplicaStatus {
	out := make([]ReplicaStatus, 0, len(s.members))
	for _, m := range s.members {
		out = append(out, m.status())
	}
	return out
}

// Signal sends sig to replica i; the Supervisor restarts it once it exits
// (unless held). It returns the pid signalled, 0 when none was running.
func (s *Supervisor) Signal(i int, sig syscall.Signal) (int, error) {
	m, err := s.member(i)
	if err != nil {
		return 0, err
	}
	return m.signal(sig)
}

// Hold stops replica i and keeps it stopped until Release: gracefully
// (SIGTERM, then SIGKILL after a grace period) when sig is SIGTERM, at once
// with SIGKILL, which leaves no chance to release the Lease.
func (s *Supervisor) Hold(i int, sig syscall.Signal) error {
	m, err := s.member(i)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.held = true
	m.mu.Unlock()
	if sig == syscall.SIGKILL {
		if _, err := m.signal(syscall.SIGKILL); err != nil {
			return err
		}
	}
	m.terminate()
	return nil
}

// Release lets a held replica start again, at once.
func (s *Supervisor) Release(i int) error {
	m, err := s.member(i)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.held = false
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
	return nil
}

// WaitRunning waits until replica i runs a process other than notPID (0:
// any process), for a caller that killed one and waits for its successor.
func (s *Supervisor) WaitRunning(ctx context.Context, i, notPID int) (int, error) {
	m, err := s.member(i)
	if err != nil {
		return 0, err
	}
	for {
		if st := m.status(); st.PID != 0 && st.PID != notPID {
			return st.PID, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for %s to run again: %w", m.spec.Name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop ends every process and waits for them; later calls do nothing.
func (s *Supervisor) Stop() {
	s.stopOnce.Do(func() {
		close(s.stopping)
		s.wg.Wait()
		s.spawner.Close()
	})
}
