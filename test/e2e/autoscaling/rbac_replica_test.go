package autoscaling

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

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
	pid, err := rc.c.Control().WaitRunning(ctx, 0, 0)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading the command line of replica 0")
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	ports, err := localcluster.FreePorts(3)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
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
	r := &ownReplica{port: ports[0], logPath: filepath.Join(suite.Config.LogDir, "hpa-controller-manager-rbac.log")}

	ginkgo.DeferCleanup(func(ctx context.Context) {
		for i := range rc.c.Count() {
			gomega.Expect(rc.c.Control().Release(ctx, i)).To(gomega.Succeed())
		}
		leader, err := rc.c.WaitForLeader(ctx, -1)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(rc.c.WaitReady(ctx, leader)).To(gomega.Succeed())
	})
	for i := range rc.c.Count() {
		gomega.Expect(rc.c.Control().Hold(ctx, i, "TERM")).To(gomega.Succeed())
	}

	// Appended to, so that the log of every case that ran one stays.
	logFile, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	if st, err := logFile.Stat(); err == nil {
		r.offset = st.Size()
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
	return r
}

// log is what the process logged (since the start of its case).
func (r *ownReplica) log() string {
	data, _ := os.ReadFile(r.logPath)
	if len(data) < int(r.offset) {
		return ""
	}
	return string(data[r.offset:])
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
