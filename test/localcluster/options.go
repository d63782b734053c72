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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Options says where the binaries are and what the cluster looks like. The
// zero value is usable: Start fills every empty field with its default.
type Options struct {
	// RepoRoot is the checkout of kube-hpa; by default the nearest parent of
	// the working directory that holds hack/build-upstream.sh.
	RepoRoot string
	// BinDir holds the upstream binaries; by default RepoRoot/_output/bin.
	BinDir string
	// ControlPlaneBinDir holds kube-apiserver, kube-controller-manager and
	// kube-scheduler of another Kubernetes release than BinDir's, to run
	// against an older control plane: make e2e-skew builds v1.36.3 into
	// _output/bin/v1.36.3 (hack/build-upstream.sh skew). etcd, kubectl and
	// kwok stay from BinDir; InTree takes all three from InTreeBinDir
	// instead. By default BinDir.
	ControlPlaneBinDir string
	// InTree takes kube-apiserver and kube-controller-manager from
	// InTreeBinDir, where hack/build-intree.sh (make intree) puts the
	// builds of KEP-5679's patch series: the fallback in native
	// autoscaling/v2 and in kube-controller-manager's own HPA
	// controller, and kube-scheduler, unpatched, of the same release
	// (BinDir's may be a newer one, whose kube-scheduler does not work
	// against an older kube-apiserver); etcd, kubectl and kwok stay from
	// BinDir. It does not by itself enable the HPA controller: see
	// HPAController.
	InTree bool
	// InTreeBinDir holds the in-tree builds; by default BinDir/intree.
	InTreeBinDir string
	// ControllerManagerBinDir, when set, holds the kube-controller-manager
	// to run instead of the one the options above choose, for the version
	// skew of an upgrade: a manager one minor older than kube-apiserver,
	// as the version skew policy allows. Start refuses a pair the policy
	// does not allow (skew.go).
	ControllerManagerBinDir string
	// HPAController runs kube-controller-manager's horizontalpodautoscaling
	// controller. Off by default: kube-hpa's hpa-controller-manager
	// replaces it, and two controllers would fight over every HPA.
	HPAController bool
	// UseServiceAccountCredentials runs each of kube-controller-manager's
	// controllers with a ServiceAccount of its own and the bootstrap RBAC
	// of that account, as kubeadm does, instead of the manager's identity.
	UseServiceAccountCredentials bool
	// HPA sets the HPA controller's flags of kube-controller-manager; an
	// unset field keeps kube-controller-manager's default.
	HPA HPAControllerFlags
	// FeatureGates are passed as --feature-gates to kube-apiserver and
	// kube-controller-manager alike, over the default HPAScaleToZero=true;
	// a gate set to false here is passed as false. Both components must
	// know every gate named (a stock v1.37.2 binary refuses
	// HPAExternalMetricFallback) and accept its value: from v1.37,
	// HPAConfigurableTolerance is GA and locked (=false makes both exit,
	// =true only warns), and AtomicFIFO=false makes them exit while the
	// StaleControllerConsistency* gates, HPA's among them, are on.
	FeatureGates map[string]bool
	// OutputDir is the parent of the run directories; by default
	// RepoRoot/_output/localcluster.
	OutputDir string
	// Build runs hack/build-upstream.sh before starting. It costs a second
	// when the binaries are up to date and minutes when they are not, so
	// tests leave it off and fail with the command to run instead.
	Build bool
	// Nodes is how many kwok nodes to create; by default 3.
	Nodes int
	// CRDDir holds the CustomResourceDefinitions to install and wait for;
	// by default RepoRoot/deploy/crd. Set NoCRDs to install none.
	CRDDir string
	NoCRDs bool
	// StartTimeout bounds the whole start, readiness included; by default
	// two minutes, generous for a machine busy with builds.
	StartTimeout time.Duration
	// StopGracePeriod is how long a component gets after SIGTERM before its
	// process group is killed; by default 5s.
	StopGracePeriod time.Duration
	// KeepRuns is how many run directories (logs) to keep under OutputDir;
	// older ones are deleted at Start, except those of the last hour. By
	// default 10.
	KeepRuns int
	// KeepEtcdData keeps etcd's data directory after Stop; it is deleted by
	// default because etcd preallocates tens of megabytes per run.
	KeepEtcdData bool
	// MetricsServer runs metrics-server (sigs.k8s.io/metrics-server,
	// built by hack/build-upstream.sh), registered as
	// v1beta1.metrics.k8s.io and scraping the kwok nodes' emulated
	// kubelets, where a pod's usage comes from its annotations
	// (UsageCPUAnnotation, UsageMemoryAnnotation): the resource metrics
	// of Resource and ContainerResource HPAs, as on a real cluster.
	MetricsServer bool
	// ExtraAPIServerFlags, ExtraControllerManagerFlags and
	// ExtraSchedulerFlags are appended to the generated flags, so a later
	// flag of the same name wins.
	ExtraAPIServerFlags         []string
	ExtraControllerManagerFlags []string
	ExtraSchedulerFlags         []string
}

// The binaries a cluster needs, by their name in BinDir.
const (
	binEtcd              = "etcd"
	binAPIServer         = "kube-apiserver"
	binControllerManager = "kube-controller-manager"
	binScheduler         = "kube-scheduler"
	binKubectl           = "kubectl"
	binKwok              = "kwok"
)

func requiredBinaries() []string {
	return []string{binEtcd, binAPIServer, binControllerManager, binScheduler, binKubectl, binKwok}
}

// inTreeBinaries are the binaries that Options.InTree takes from
// InTreeBinDir.
func inTreeBinaries() []string { return []string{binAPIServer, binControllerManager, binScheduler} }

// controlPlaneBinaries are the binaries that the cluster takes from
// ControlPlaneBinDir: those of one Kubernetes release.
func controlPlaneBinaries() []string {
	return []string{binAPIServer, binControllerManager, binScheduler}
}

// binaryPath is where the cluster takes the binary called name from.
func (o Options) binaryPath(name string) string {
	switch {
	case name == binControllerManager && o.ControllerManagerBinDir != "":
		return filepath.Join(o.ControllerManagerBinDir, name)
	case o.InTree && slices.Contains(inTreeBinaries(), name):
		return filepath.Join(o.InTreeBinDir, name)
	case slices.Contains(controlPlaneBinaries(), name):
		return filepath.Join(o.ControlPlaneBinDir, name)
	}
	return filepath.Join(o.BinDir, name)
}

// HPAControllerFlags are kube-controller-manager's flags of its HPA
// controller, by their meaning; a zero (or nil) field is not passed, so
// the component's default applies (the pointers are for fields whose zero
// is a valid setting).
type HPAControllerFlags struct {
	// SyncPeriod is --horizontal-pod-autoscaler-sync-period (default 15s).
	SyncPeriod time.Duration
	// DownscaleStabilization is
	// --horizontal-pod-autoscaler-downscale-stabilization (default 5m).
	DownscaleStabilization *time.Duration
	// Tolerance is --horizontal-pod-autoscaler-tolerance (default 0.1).
	Tolerance *float64
	// CPUInitializationPeriod is
	// --horizontal-pod-autoscaler-cpu-initialization-period (default 5m).
	CPUInitializationPeriod time.Duration
	// InitialReadinessDelay is
	// --horizontal-pod-autoscaler-initial-readiness-delay (default 30s).
	InitialReadinessDelay time.Duration
	// ConcurrentSyncs is --concurrent-horizontal-pod-autoscaler-syncs
	// (default 5).
	ConcurrentSyncs int
}

// withDefaults returns a copy of o with every empty field set.
func (o Options) withDefaults() (Options, error) {
	if o.RepoRoot == "" {
		root, err := FindRepoRoot()
		if err != nil {
			return o, err
		}
		o.RepoRoot = root
	}
	if o.BinDir == "" {
		o.BinDir = filepath.Join(o.RepoRoot, "_output", "bin")
	}
	if o.ControlPlaneBinDir == "" {
		o.ControlPlaneBinDir = o.BinDir
	}
	if o.InTreeBinDir == "" {
		o.InTreeBinDir = filepath.Join(o.BinDir, "intree")
	}
	if o.OutputDir == "" {
		o.OutputDir = filepath.Join(o.RepoRoot, "_output", "localcluster")
	}
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	if o.CRDDir == "" {
		o.CRDDir = filepath.Join(o.RepoRoot, "deploy", "crd")
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 2 * time.Minute
	}
	if o.KeepRuns == 0 {
		o.KeepRuns = 10
	}
	if o.StopGracePeriod == 0 {
		o.StopGracePeriod = 5 * time.Second
	}
	if o.Nodes < 0 {
		return o, fmt.Errorf("nodes must not be negative, got %d", o.Nodes)
	}
	return o, nil
}

// FindRepoRoot returns the nearest parent of the working directory that
// holds hack/build-upstream.sh, so tests find the binaries from whatever
// package directory `go test` runs them in.
func FindRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "build-upstream.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no parent of the working directory holds hack/build-upstream.sh: set Options.RepoRoot")
		}
		dir = parent
	}
}
