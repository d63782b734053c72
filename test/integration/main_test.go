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

	// sharded has kube-apiserver's ShardedListAndWatch gate on; quiet has
	// it off, as the shared cluster, but none of the other tests' objects.
	// Each is started by the first test that asks for it.
	sharded, quiet lazyCluster
}

// lazyCluster is a cluster of the suite started at its first use and
// stopped by TestMain.
type lazyCluster struct {
	once    sync.Once
	cluster *localcluster.Cluster
	err     error
}

func (l *lazyCluster) get(t *testing.T, what string, opts localcluster.Options) *localcluster.Cluster {
	t.Helper()
	sharedCluster(t)
	l.once.Do(func() {
		ctx := klog.NewContext(context.Background(), klog.Background())
		l.cluster, l.err = localcluster.Start(ctx, opts)
	})
	if l.err != nil {
		t.Fatalf("starting a cluster %s: %v", what, l.err)
	}
	return l.cluster
}

func (l *lazyCluster) stop(what string) int {
	if l.cluster == nil {
		return 0
	}
	if err := l.cluster.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "integration: stopping the cluster %s: %v\n", what, err)
		return 1
	}
	return 0
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
	code = max(code, suite.sharded.stop("with ShardedListAndWatch"), suite.quiet.stop("of its own"))
	if leftovers, err := cluster.LeftoverProcesses(); err != nil || len(leftovers) > 0 {
		fmt.Fprintf(os.Stderr, "integration: processes left after Stop (%v):\n%s\n", err, strings.Join(leftovers, "\n"))
		code = 1
	}
	return code
}

// shardedListAndWatchCluster returns a cluster whose kube-apiserver runs
// with the ShardedListAndWatch gate (KEP-5866) on.
func shardedListAndWatchCluster(t *testing.T) *localcluster.Cluster {
	return suite.sharded.get(t, "with ShardedListAndWatch", localcluster.Options{
		Nodes: 1,
		// A later --feature-gates replaces the default one: it repeats the
		// gate the default sets.
		ExtraAPIServerFlags: []string{"--feature-gates=HPAScaleToZero=true,ShardedListAndWatch=true"},
	})
}

// quietCluster returns a cluster like the shared one (ShardedListAndWatch
// off) that holds no other test's HPAs: for a test that runs every HPA of
// the cluster at a short sync period, which the others' leftovers would
// slow.
func quietCluster(t *testing.T) *localcluster.Cluster {
	return suite.quiet.get(t, "of its own", localcluster.Options{Nodes: 1})
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
