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
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

// TestFlagsCarryTheEstablishedFacts pins the flags DESIGN.md lists as
// needed for each component, so that a refactoring cannot drop one quietly.
func TestFlagsCarryTheEstablishedFacts(t *testing.T) {
	l := layout{runDir: "/run", kubeconfig: "/run/kubeconfig", caCert: "/run/pki/ca.crt", apiServerPort: 6443}
	tests := []struct {
		component string
		flags     []string
		want      []string
	}{
		{binAPIServer, apiServerFlags(l, Options{}), []string{
			"--authorization-mode=Node,RBAC", "--feature-gates=HPAScaleToZero=true", "--token-auth-file=",
			"--service-account-key-file=", "--service-account-signing-key-file=", "--service-account-issuer=",
			"--requestheader-client-ca-file=", "--requestheader-allowed-names=front-proxy-client",
			"--proxy-client-cert-file=", "--proxy-client-key-file=", "--secure-port=6443",
		}},
		{binControllerManager, controllerManagerFlags(l, Options{}), []string{
			"--controllers=*,-horizontalpodautoscaling", "--root-ca-file=/run/pki/ca.crt",
			"--service-account-private-key-file=", "--kubeconfig=/run/kubeconfig",
		}},
		{binScheduler, schedulerFlags(l), []string{"--kubeconfig=/run/kubeconfig", "--bind-address=127.0.0.1"}},
		{binKwok, kwokFlags(l), []string{"--config=", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake"}},
	}
	for _, tc := range tests {
		t.Run(tc.component, func(t *testing.T) {
			for _, want := range tc.want {
				if !slices.ContainsFunc(tc.flags, func(f string) bool { return strings.HasPrefix(f, want) }) {
					t.Errorf("no flag %q in %v", want, tc.flags)
				}
			}
		})
	}
}

func TestFakeNodesMatchKwokSelector(t *testing.T) {
	node := fakeNode("n")
	if node.Annotations[kwokNodeAnnotationKey] != kwokNodeAnnotationValue {
		t.Errorf("node annotations %v do not match kwok's selector", node.Annotations)
	}
	if len(node.Spec.Taints) != 0 {
		t.Errorf("a tainted node would need tolerations in every test: %v", node.Spec.Taints)
	}
}

// flagValues returns the values of every occurrence of flag name.
func flagValues(flags []string, name string) []string {
	var out []string
	for _, f := range flags {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

func TestControllerManagerRunsTheHPAControllerOnlyWhenAsked(t *testing.T) {
	tests := []struct {
		name          string
		hpaController bool
		want          string
	}{
		{"kube-hpa replaces the HPA controller by default", false, "*,-horizontalpodautoscaling"},
		{"the in-tree mode runs it", true, "*"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flags := controllerManagerFlags(layout{}, Options{HPAController: tc.hpaController})
			// pflag appends repeated string slices: a second --controllers
			// would add to the first instead of replacing it.
			if got := flagValues(flags, "--controllers"); !slices.Equal(got, []string{tc.want}) {
				t.Errorf("--controllers values %q, want exactly [%q]", got, tc.want)
			}
		})
	}
}

func TestControllerManagerUsesServiceAccountCredentialsOnlyWhenAsked(t *testing.T) {
	tests := []struct {
		name string
		use  bool
		want []string
	}{
		{"the manager's own identity by default", false, nil},
		{"a ServiceAccount per controller, as kubeadm runs it", true, []string{"true"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flags := controllerManagerFlags(layout{}, Options{UseServiceAccountCredentials: tc.use})
			if got := flagValues(flags, "--use-service-account-credentials"); !slices.Equal(got, tc.want) {
				t.Errorf("--use-service-account-credentials values %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFeatureGatesGoToBothComponents(t *testing.T) {
	tests := []struct {
		name  string
		gates map[string]bool
		want  string
	}{
		{"default", nil, "HPAScaleToZero=true"},
		{"gates added, sorted", map[string]bool{"HPAExternalMetricFallback": true, "HPAGeneration": true},
			"HPAExternalMetricFallback=true,HPAGeneration=true,HPAScaleToZero=true"},
		{"a gate off is passed off", map[string]bool{"HPAExternalMetricFallback": false},
			"HPAExternalMetricFallback=false,HPAScaleToZero=true"},
		{"the default can be turned off", map[string]bool{"HPAScaleToZero": false}, "HPAScaleToZero=false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{FeatureGates: tc.gates}
			for component, flags := range map[string][]string{
				binAPIServer:         apiServerFlags(layout{}, o),
				binControllerManager: controllerManagerFlags(layout{}, o),
			} {
				if got := flagValues(flags, "--feature-gates"); !slices.Equal(got, []string{tc.want}) {
					t.Errorf("%s: --feature-gates values %q, want exactly [%q]", component, got, tc.want)
				}
			}
		})
	}
}

func TestHPAControllerFlags(t *testing.T) {
	tests := []struct {
		name string
		hpa  HPAControllerFlags
		want []string
	}{
		{"unset fields keep kube-controller-manager's defaults", HPAControllerFlags{}, nil},
		{"every field", HPAControllerFlags{
			SyncPeriod:              5 * time.Second,
			DownscaleStabilization:  ptr.To(time.Minute),
			Tolerance:               ptr.To(0.05),
			CPUInitializationPeriod: 2 * time.Minute,
			InitialReadinessDelay:   10 * time.Second,
			ConcurrentSyncs:         10,
		}, []string{
			"--horizontal-pod-autoscaler-sync-period=5s",
			"--horizontal-pod-autoscaler-downscale-stabilization=1m0s",
			"--horizontal-pod-autoscaler-tolerance=0.05",
			"--horizontal-pod-autoscaler-cpu-initialization-period=2m0s",
			"--horizontal-pod-autoscaler-initial-readiness-delay=10s",
			"--concurrent-horizontal-pod-autoscaler-syncs=10",
		}},
		{"a zero window and a zero tolerance are settings", HPAControllerFlags{DownscaleStabilization: ptr.To(time.Duration(0)), Tolerance: ptr.To(0.0)},
			[]string{"--horizontal-pod-autoscaler-downscale-stabilization=0s", "--horizontal-pod-autoscaler-tolerance=0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flags := controllerManagerFlags(layout{}, Options{HPA: tc.hpa})
			var got []string
			for _, f := range flags {
				if strings.HasPrefix(f, "--horizontal-pod-autoscaler-") || strings.HasPrefix(f, "--concurrent-horizontal-pod-autoscaler-") {
					got = append(got, f)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("HPA flags %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBinariesComeFromTheirDirectories(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		binary string
		want   string
	}{
		{"stock apiserver", Options{}, binAPIServer, "/repo/_output/bin/kube-apiserver"},
		{"in-tree apiserver", Options{InTree: true}, binAPIServer, "/repo/_output/bin/intree/kube-apiserver"},
		{"in-tree controller manager", Options{InTree: true}, binControllerManager, "/repo/_output/bin/intree/kube-controller-manager"},
		{"in-tree scheduler of the same release", Options{InTree: true}, binScheduler, "/repo/_output/bin/intree/kube-scheduler"},
		{"in-tree mode keeps etcd", Options{InTree: true}, binEtcd, "/repo/_output/bin/etcd"},
		{"in-tree mode keeps kubectl", Options{InTree: true}, binKubectl, "/repo/_output/bin/kubectl"},
		{"in-tree directory of its own", Options{InTree: true, InTreeBinDir: "/patched"}, binControllerManager, "/patched/kube-controller-manager"},
		{"the directory alone changes nothing", Options{InTreeBinDir: "/patched"}, binControllerManager, "/repo/_output/bin/kube-controller-manager"},
		{"older apiserver", Options{ControlPlaneBinDir: "/old"}, binAPIServer, "/old/kube-apiserver"},
		{"older controller manager", Options{ControlPlaneBinDir: "/old"}, binControllerManager, "/old/kube-controller-manager"},
		{"older scheduler", Options{ControlPlaneBinDir: "/old"}, binScheduler, "/old/kube-scheduler"},
		{"an older control plane keeps etcd", Options{ControlPlaneBinDir: "/old"}, binEtcd, "/repo/_output/bin/etcd"},
		{"an older control plane keeps kubectl", Options{ControlPlaneBinDir: "/old"}, binKubectl, "/repo/_output/bin/kubectl"},
		{"an older control plane keeps kwok", Options{ControlPlaneBinDir: "/old"}, binKwok, "/repo/_output/bin/kwok"},
		{"in-tree wins over an older control plane", Options{InTree: true, ControlPlaneBinDir: "/old"}, binScheduler, "/repo/_output/bin/intree/kube-scheduler"},
		{"a bin directory of its own moves the control plane too", Options{BinDir: "/bin"}, binScheduler, "/bin/kube-scheduler"},
		{"a controller manager of its own directory", Options{InTree: true, ControllerManagerBinDir: "/older"}, binControllerManager, "/older/kube-controller-manager"},
		{"a controller manager of its own directory leaves kube-apiserver", Options{InTree: true, ControllerManagerBinDir: "/older"}, binAPIServer, "/repo/_output/bin/intree/kube-apiserver"},
		{"a controller manager of its own directory leaves kube-scheduler", Options{ControllerManagerBinDir: "/older"}, binScheduler, "/repo/_output/bin/kube-scheduler"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.RepoRoot = "/repo"
			o, err := tc.opts.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			if got := o.binaryPath(tc.binary); got != filepath.FromSlash(tc.want) {
				t.Errorf("%s from %s, want %s", tc.binary, got, tc.want)
			}
		})
	}
}
