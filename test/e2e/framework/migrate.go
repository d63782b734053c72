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

package framework

import (
	"context"
	"time"
)

// Where an HPA goes with hpa-controller-manager migrate --to.
const (
	MigrateToKubeHPA = "kube-hpa"
	MigrateToNative  = "native"
)

// migrateTimeout bounds one migration: two writes and a read.
const migrateTimeout = time.Minute

// Migrate runs "hpa-controller-manager migrate NAME --to to" in namespace
// against the environment, as an operator would from a workstation, and
// returns what it printed.
func (e *Environment) Migrate(ctx context.Context, namespace, name, to string, dryRun bool) (string, error) {
	args := []string{"migrate", name, "--namespace=" + namespace, "--to=" + to, "--kubeconfig=" + e.Config.Kubeconfig}
	if dryRun {
		args = append(args, "--dry-run")
	}
	return tool{
		binary:  binaryPath(e.Config.RepoRoot, EnvControllerBinary, controllerBinary),
		args:    args,
		timeout: migrateTimeout,
	}.run(ctx)
}
