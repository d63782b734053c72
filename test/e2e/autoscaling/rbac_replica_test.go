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

package autoscaling

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// ownReplica is a controller process that the RBAC spec starts itself,
// with the command line of the suite's replicas (read from a running one)
// and an environment of its own: client-go reads its feature gates from
// KUBE_FEATURE_* variables, which the suite's replicas cannot be given.
type ownReplica struct {
	logPath string
	// offset is the size of the log before this process started.
	offset int64
	port   int
}

// startOwnReplica holds every replica of the suite down, so that the Lease
// is free, and starts one process with env added to the environment.
// Cleanup stops it and lets the replicas start again.
func (rc *rbacCase) startOwnReplica(ctx context.Context, env ...string) *ownReplica {
	ginkgo.GinkgoHelper()
	args, port := holdSuiteReplicas(ctx, rc.c)
	r := &ownReplica{port: port, logPath: filepath.Join(suite.Config.LogDir, "hpa-controller-manager-rbac.log")}
	r.offset, _ = startOwnProcess(args, env, r.logPath)
	return r
}

// holdSuiteReplicas reads the command line of the suite's replica 0, with
// fresh ports for a process of the spec's own (the plain one returned),
// then holds every replica of the suite down until the spec's cleanup,
// which lets them start again and waits for a leader.
func holdSuiteReplicas(ctx context.Context, c *framework.Controllers) (args []string, port int) {
	ginkgo.GinkgoHelper()
	pid, err := c.Control().WaitRunning(ctx, 0, 0)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading the command line of replica 0")
	args = strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")

	ginkgo.DeferCleanup(func(ctx context.Context) {
		for i := range c.Count() {
			gomega.Expect(c.Control().Release(ctx, i)).To(gomega.Succeed())
		}
		leader, err := c.WaitForLeader(ctx, -1)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(c.WaitReady(ctx, leader)).To(gomega.Succeed())
	})
	for i := range c.Count() {
		gomega.Expect(c.Control().Hold(ctx, i, "TERM")).To(gomega.Succeed())
	}
	return withFreshPorts(args)
}

// withFreshPorts returns a copy of a replica's command line listening on
// free ports, and its plain port.
func withFreshPorts(args []string) ([]string, int) {
	ginkgo.GinkgoHelper()
	ports, err := localcluster.FreePorts(3)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	args = slices.Clone(args)
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--port="):
			args[i] = "--port=" + strconv.Itoa(ports[0])
		case strings.HasPrefix(a, "--webhook-port="):
			args[i] = "--webhook-port=" + strconv.Itoa(ports[1])
		case strings.HasPrefix(a, "--secure-port="):
			args[i] = "--secure-port=" + strconv.Itoa(ports[2])
		}
	}
	return args, ports[0]
}

// startOwnProcess starts args with env added to the environment, appending
// to logPath, and stops it (TERM, then KILL after 30s) at the spec's
// cleanup. It returns the log's size before the start, and the process.
func startOwnProcess(args, env []string, logPath string) (int64, *os.Process) {
	ginkgo.GinkgoHelper()
	// Appended to, so that the log of every case that ran one stays.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var offset int64
	if st, err := logFile.Stat(); err == nil {
		offset = st.Size()
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	gomega.Expect(cmd.Start()).To(gomega.Succeed())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	ginkgo.DeferCleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logFile.Close()
	})
	return offset, cmd.Process
}

// log is what the process logged (since the start of its case).
func (r *ownReplica) log() string { return logSince(r.logPath, r.offset) }

// logSince is what the log at path holds from offset on.
func logSince(path string, offset int64) string {
	data, _ := os.ReadFile(path)
	if len(data) < int(offset) {
		return ""
	}
	return string(data[offset:])
}

// waitLeading waits until the process says it became the leader.
func (r *ownReplica) waitLeading(ctx context.Context) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, r.log).WithTimeout(suite.Config.LeaseDuration.Duration+takeoverSlack()).
		WithPolling(500*time.Millisecond).Should(gomega.ContainSubstring("Became leader"), "the replica started by the spec to lead")
}

// ready tells whether the process answers /readyz, which a leader does
// once its caches have synced.
func (r *ownReplica) ready(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/readyz", r.port), nil)
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
