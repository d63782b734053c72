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
	"os/exec"
	"testing"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// startWithParentDeathSignal starts cmd with localcluster's Spawner: in a
// process group of its own, with SIGKILL as its parent-death signal, from
// a thread that lives until the returned stop is called, so the child dies
// with a test binary that panics or times out, and never before stop.
func startWithParentDeathSignal(t *testing.T, cmd *exec.Cmd) (stop func()) {
	t.Helper()
	s := localcluster.NewSpawner()
	if err := s.Start(cmd); err != nil {
		s.Close()
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	return s.Close
}
