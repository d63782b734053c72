package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
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

	// sharded is a second cluster, with kube-apiserver's ShardedListAndWatch
	// gate on, started by the first test that asks for it.
	shardedOnce sync.Once
	sharded     *localcluster.Cluster
	shardedErr  error
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
	if suite.sharded != nil {
		if err := suite.sharded.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "integration: stopping the cluster with ShardedListAndWatch: %v\n", err)
			code = 1
		}
	}
	if leftovers, err := cluster.LeftoverProcesses(); err != nil || len(leftovers) > 0 {
		fmt.Fprintf(os.Stderr, "integration: processes left after Stop (%v):\n%s\n", err, strings.Join(leftovers, "\n"))
		code = 1
	}
	return code
}

// shardedListAndWatchCluster returns a cluster whose kube-apiserver runs
// with the ShardedListAndWatch gate (KEP-5866) on, started at its first use
// and stopped by TestMain.
func shardedListAndWatchCluster(t *testing.T) *localcluster.Cluster {
	t.Helper()
	sharedCluster(t)
	suite.shardedOnce.Do(func() {
		ctx := klog.NewContext(context.Background(), klog.Background())
		suite.sharded, suite.shardedErr = localcluster.Start(ctx, localcluster.Options{
			Nodes: 1,
			// A later --feature-gates replaces the default one: it repeats
			// the gate the default sets.
			ExtraAPIServerFlags: []string{"--feature-gates=HPAScaleToZero=true,ShardedListAndWatch=true"},
		})
	})
	if suite.shardedErr != nil {
		t.Fatalf("starting a cluster with ShardedListAndWatch: %v", suite.shardedErr)
	}
	return suite.sharded
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
