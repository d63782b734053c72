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
	"os/exec"
	"runtime"
	"syscall"
)

// Spawner starts child processes from one goroutine locked to its OS
// thread. Linux delivers a child's parent-death signal when the thread that
// forked it exits, not the process, and the Go runtime may end idle threads;
// forking from a thread that lives exactly as long as the cluster makes the
// signal mean "the cluster's owner is gone" (a panic, a test time-out, a
// SIGKILL of the test binary) and nothing else.
type Spawner struct {
	requests chan spawnRequest
	done     chan struct{}
}

type spawnRequest struct {
	cmd    *exec.Cmd
	result chan error
}

// NewSpawner starts the spawning thread; Close ends it.
func NewSpawner() *Spawner {
	s := &Spawner{requests: make(chan spawnRequest), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *Spawner) loop() {
	// Never unlocked: when this goroutine returns, its thread exits with it
	// and any child still alive gets SIGKILL, which is what Close wants.
	runtime.LockOSThread()
	defer close(s.done)
	for req := range s.requests {
		req.result <- req.cmd.Start()
	}
}

// Start starts cmd in a process group of its own (so that Stop can signal
// the component and anything it forked) with a parent-death signal.
func (s *Spawner) Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	result := make(chan error, 1)
	s.requests <- spawnRequest{cmd: cmd, result: result}
	return <-result
}

// Close ends the spawning thread; call it after every child has been
// stopped and waited for.
func (s *Spawner) Close() {
	close(s.requests)
	<-s.done
}
