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
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// versionSkewPolicy is upstream's rule for the pair the cluster runs.
const versionSkewPolicy = "https://kubernetes.io/releases/version-skew-policy/#kube-controller-manager-kube-scheduler-and-cloud-controller-manager"

// checkVersionSkew refuses a kube-controller-manager from another
// directory than kube-apiserver's (Options.ControllerManagerBinDir) whose
// release the version skew policy does not allow with that kube-apiserver.
// Binaries of one directory are of one release and are not asked.
func checkVersionSkew(ctx context.Context, o Options) error {
	apiserver, manager := o.binaryPath(binAPIServer), o.binaryPath(binControllerManager)
	if filepath.Dir(apiserver) == filepath.Dir(manager) {
		return nil
	}
	apiVersion, err := binaryVersion(ctx, apiserver)
	if err != nil {
		return err
	}
	managerVersion, err := binaryVersion(ctx, manager)
	if err != nil {
		return err
	}
	return skewAllowed(apiVersion, managerVersion)
}

// skewAllowed says whether a kube-controller-manager of version manager may
// run against a kube-apiserver of version apiserver: the policy wants the
// manager at the server's minor or one below, never newer, since a newer
// manager may use APIs, fields or defaults the older server does not have.
func skewAllowed(apiserver, manager *version.Version) error {
	switch {
	case apiserver.Major() != manager.Major():
		return fmt.Errorf("kube-controller-manager v%s and kube-apiserver v%s are of different major versions: not allowed by the version skew policy (%s)", manager, apiserver, versionSkewPolicy)
	case manager.Minor() > apiserver.Minor():
		return fmt.Errorf("kube-controller-manager v%s is newer than kube-apiserver v%s: the version skew policy (%s) allows a kube-controller-manager of the kube-apiserver's minor version or one older; upgrade kube-apiserver first", manager, apiserver, versionSkewPolicy)
	case manager.Minor()+1 < apiserver.Minor():
		return fmt.Errorf("kube-controller-manager v%s is more than one minor version older than kube-apiserver v%s: not allowed by the version skew policy (%s)", manager, apiserver, versionSkewPolicy)
	}
	return nil
}

// binaryVersion asks a Kubernetes component for its version.
func binaryVersion(ctx context.Context, path string) (*version.Version, error) {
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w\n%s", path, err, out)
	}
	// "Kubernetes v1.37.2"
	fields := strings.Fields(string(out))
	if len(fields) < 2 {
		return nil, fmt.Errorf("%s --version printed %q, not a Kubernetes version", path, out)
	}
	v, err := version.ParseSemantic(fields[len(fields)-1])
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", path, err)
	}
	return v, nil
}
