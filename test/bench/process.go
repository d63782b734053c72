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
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// process is a child the benchmark started: the metrics adapter, or one
// of the controllers under test.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	// exited is closed once the child has been waited for.
	exited chan struct{}
	// release ends the thread that forked the child; see startProcess.
	release chan struct{}
}

// startProcess starts binary with its output appended to logPath. The
// child gets SIGKILL when the forking thread ends (Pdeathsig), and that
// thread lives until stop: an interrupted or crashed benchmark leaves no
// controller behind, and the Go runtime retiring an idle thread cannot
// kill a child early.
func startProcess(name, binary, logPath string, args []string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logFile, "# %s %s\n", binary, strings.Join(args, " "))
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &process{name: name, logPath: logPath, cmd: cmd, exited: make(chan struct{}), release: make(chan struct{})}
	started := make(chan error)
	go func() {
		// Never unlocked: the thread exits with this goroutine.
		runtime.LockOSThread()
		started <- cmd.Start()
		<-p.release
	}()
	if err := <-started; err != nil {
		close(p.release)
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// alive returns an error with the end of the log once the child has
// exited, which is where a controller says why it gave up.
func (p *process) alive() error {
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited (%v); end of %s:\n%s", p.name, p.cmd.ProcessState, p.logPath, tail(p.logPath, 15))
	default:
		return nil
	}
}

// stop sends SIGTERM to the child's process group, kills the group after
// grace, and releases the forking thread.
func (p *process) stop(grace time.Duration) {
	pgid := p.pid()
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	close(p.release)
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
