package framework

import (
	"os/exec"
	"runtime"
	"syscall"
)

// spawner starts child processes from one goroutine locked to its OS
// thread. Linux sends a child's parent-death signal when the thread that
// forked it exits, and the Go runtime may retire idle threads; a thread
// that lives exactly as long as the spawner makes the signal mean "the
// suite's process is gone" (a panic, a ginkgo time-out, a SIGKILL), so no
// controller or adapter outlives a crashed run.
type spawner struct {
	requests chan spawnRequest
	done     chan struct{}
}

type spawnRequest struct {
	cmd    *exec.Cmd
	result chan error
}

func newSpawner() *spawner {
	s := &spawner{requests: make(chan spawnRequest), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *spawner) loop() {
	// Never unlocked: the thread exits with this goroutine, which is what
	// close wants once every child is gone.
	runtime.LockOSThread()
	defer close(s.done)
	for req := range s.requests {
		req.result <- req.cmd.Start()
	}
}

// start starts cmd in a process group of its own, so that a signal reaches
// anything it forked, with SIGKILL as its parent-death signal.
func (s *spawner) start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	result := make(chan error, 1)
	s.requests <- spawnRequest{cmd: cmd, result: result}
	return <-result
}

// close ends the spawning thread; call it once every child has exited.
func (s *spawner) close() {
	close(s.requests)
	<-s.done
}
