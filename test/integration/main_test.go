package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// requiredEnv makes missing binaries a failure instead of a skip.
const requiredEnv = "KUBE_HPA_INTEGRATION"

// suite is what TestMain hands the tests: the shared cluster, or why there
// is none.
var suite struct {
	cluster    *localcluster.Cluster
	skipReason string
}

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	binDir, err := localcluster.DefaultBinDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		return 1
	}
	if missing := localcluster.MissingBinaries(binDir); len(missing) > 0 {
		reason := fmt.Sprintf("integration tests need %s in %s: run `make upstream-binaries` (or `make integration`)",
			strings.Join(missing, ", "), binDir)
		if os.Getenv(requiredEnv) == "1" {
			fmt.Fprintf(os.Stderr, "integration: %s=1 but %s\n", requiredEnv, reason)
			return 1
		}
		suite.skipReason = reason
		return m.Run()
	}

	ctx := klog.NewContext(context.Background(), klog.Background())
	cluster, err := localcluster.Start(ctx, localcluster.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		return 1
	}
	suite.cluster = cluster
	code := m.Run()
	if err := cluster.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "integration: stopping the cluster: %v\n", err)
		code = 1
	}
	if leftovers, err := cluster.LeftoverProcesses(); err != nil || len(leftovers) > 0 {
		fmt.Fprintf(os.Stderr, "integration: processes left after Stop (%v):\n%s\n", err, strings.Join(leftovers, "\n"))
		code = 1
	}
	return code
}

// sharedCluster returns the cluster of TestMain, or skips the test when the
// binaries are missing.
func sharedCluster(t *testing.T) *localcluster.Cluster {
	t.Helper()
	if suite.cluster == nil {
		t.Skip(suite.skipReason)
	}
	return suite.cluster
}
