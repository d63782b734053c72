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

package app

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/component-base/metrics"
)

// programName is what --version names, where kube-controller-manager's
// says "Kubernetes": the version printed is kube-hpa's, not upstream's.
const programName = "hpa-controller-manager"

// versionRequest is the value of --version: false (run), true (print the
// version and exit) or raw (print every field of the build's version info).
type versionRequest string

const (
	versionOff  versionRequest = "false"
	versionOn   versionRequest = "true"
	versionRaw  versionRequest = "raw"
	versionFlag                = "version"
)

func (v *versionRequest) String() string { return string(*v) }
func (v *versionRequest) Type() string   { return "version" }

// IsBoolFlag lets a bare --version mean true, as kube-controller-manager's does.
func (v *versionRequest) IsBoolFlag() bool { return true }

func (v *versionRequest) Set(s string) error {
	switch r := versionRequest(s); r {
	case versionOff, versionOn, versionRaw:
		*v = r
		return nil
	}
	return fmt.Errorf("--version takes true, false or raw, got %q", s)
}

// addVersionFlag registers --version on fs and returns its value.
func addVersionFlag(fs *pflag.FlagSet) *versionRequest {
	v := versionOff
	f := fs.VarPF(&v, versionFlag, "", "--version prints the version and quits; --version=raw prints every field of the build's version information (git version, commit, tree state, build date, Go version, platform)")
	f.NoOptDefVal = string(versionOn)
	return &v
}

// printVersion writes what the request asks for to w and reports whether
// it wrote anything, that is whether the process should stop there.
func printVersion(w io.Writer, req versionRequest, info apimachineryversion.Info) (bool, error) {
	var err error
	switch req {
	case versionOn:
		_, err = fmt.Fprintf(w, "%s %s\n", programName, info.GitVersion)
	case versionRaw:
		_, err = fmt.Fprintf(w, "%#v\n", info)
	default:
		return false, nil
	}
	return true, err
}

// registerBuildInfo exports kubernetes_build_info, the constant 1 labelled
// with the build's version, on the registry /metrics serves, as every
// Kubernetes component does: dashboards and alerts that join on it (a
// version per pod during a rollout) work unchanged.
func registerBuildInfo(registry metrics.KubeRegistry) {
	metrics.RegisterBuildInfo(registry)
}
