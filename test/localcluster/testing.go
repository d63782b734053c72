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
	"testing"

	"k8s.io/klog/v2/ktesting"
)

// StartForTest starts a cluster for one test and stops it when the test
// ends, passed, failed or panicked, then fails the test if any process of
// the cluster survived. Most suites share one cluster from TestMain instead:
// a start costs seconds.
func StartForTest(t testing.TB, opts Options) *Cluster {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("starting the local cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping the local cluster: %v", err)
		}
		leftovers, err := c.LeftoverProcesses()
		if err != nil {
			t.Errorf("looking for leftover processes: %v", err)
		}
		for _, l := range leftovers {
			t.Errorf("process left running by the local cluster: %s", l)
		}
	})
	return c
}
