package localcluster

import (
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"
)

// startedClusterForTest starts a one-node cluster of opts when
// KUBE_HPA_INTEGRATION=1 (make integration sets it) and the binaries are
// there, and skips otherwise: unit tests start nothing.
func startedClusterForTest(t *testing.T, opts Options) *Cluster {
	t.Helper()
	if os.Getenv("KUBE_HPA_INTEGRATION") != "1" {
		t.Skip("starts a local cluster: set KUBE_HPA_INTEGRATION=1")
	}
	missing, err := MissingBinariesOf(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Skipf("missing %s", strings.Join(missing, ", "))
	}
	opts.Nodes, opts.NoCRDs = 1, true
	return StartForTest(t, opts)
}

func TestRestartControllerManager(t *testing.T) {
	c := startedClusterForTest(t, Options{HPA: HPAControllerFlags{SyncPeriod: 5 * time.Second}})
	_, ctx := ktesting.NewTestContext(t)
	before, err := c.Component(binControllerManager)
	if err != nil {
		t.Fatal(err)
	}
	if before.Starts != 1 {
		t.Errorf("starts before a restart: %d, want 1", before.Starts)
	}
	after, err := c.RestartControllerManager(ctx)
	if err != nil {
		t.Fatalf("restart: %v (logs in %s)", err, c.LogDir())
	}
	if after.PID == before.PID || after.Starts != 2 || !after.StartedAt.After(before.StartedAt) {
		t.Errorf("after the restart %+v, before %+v: want a new process, started later, the second", after, before)
	}
	log, err := os.ReadFile(c.LogPath(binControllerManager))
	if err != nil {
		t.Fatal(err)
	}
	// Both command lines, the same flags, in the one log.
	var commands []string
	for _, line := range strings.Split(string(log), "\n") {
		if strings.HasPrefix(line, "# ") {
			commands = append(commands, line)
		}
	}
	if len(commands) != 2 || commands[0] != commands[1] {
		t.Errorf("command lines in the log: %q, want the same one twice", commands)
	}
	if !strings.Contains(commands[0], "--horizontal-pod-autoscaler-sync-period=5s") {
		t.Errorf("command line %q lacks the HPA flags", commands[0])
	}
	// A namespace gets its default ServiceAccount from the new process.
	if err := c.CreateNamespace(ctx, "after-restart"); err != nil {
		t.Errorf("kube-controller-manager does not work after its restart: %v", err)
	}
}

// TestInTreeControlPlane starts the in-tree kube-apiserver and
// kube-controller-manager of make intree with the HPA controller and the
// fallback gate.
func TestInTreeControlPlane(t *testing.T) {
	c := startedClusterForTest(t, Options{
		InTree:        true,
		HPAController: true,
		FeatureGates:  map[string]bool{"HPAExternalMetricFallback": true},
	})
	for _, component := range []string{binAPIServer, binControllerManager} {
		log, err := os.ReadFile(c.LogPath(component))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(log), "\n")
		if !strings.Contains(first, "/intree/"+component+" ") || !strings.Contains(first, "HPAExternalMetricFallback=true") {
			t.Errorf("%s started as %q", component, first)
		}
	}
	out, err := c.Kubectl("explain", "hpa.spec.metrics.external.fallback", "--api-version=autoscaling/v2")
	if err != nil {
		t.Fatalf("the in-tree kube-apiserver does not serve the fallback field: %v\n%s", err, out)
	}
}
