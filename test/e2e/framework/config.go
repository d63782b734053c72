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
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Environment variables that point the suite at an existing cluster.
const (
	// EnvMode chooses the mode the suite tests: "crd" (the default)
	// or "intree" (ModeInTree). Locally it decides what process 1 starts;
	// with KUBECONFIG it says what that cluster runs.
	EnvMode = "E2E_MODE"
	// EnvKubeconfig names the kubeconfig of an existing cluster; when it is
	// set the suite starts nothing. The cluster must have:
	//   - the CRD of deploy/crd and the admission webhook of deploy/webhook.yaml,
	//   - hpa-controller-manager running with
	//     --feature-gates=HPAExternalMetricFallback=true,HPAExternalMetricFallbackStrategy=true,HPAConfigurableSyncPeriod=true,KubeHPADecisionTrace=true,HPAMetricSource=true
	//     (and, for the specs
	//     on native HPAs, --manage-native-hpas),
	//   - the test metrics adapter of test/metrics-adapter registered for
	//     external.metrics.k8s.io/v1beta1 and custom.metrics.k8s.io/v1beta2,
	//     reading the ConfigMap kube-hpa-system/test-metrics, which the
	//     kubeconfig's user may patch,
	//   - nodes that run pods of registry.k8s.io/pause.
	// Specs that kill, restart or re-permission the controller
	// ([Disruptive]) need the local environment and skip.
	EnvKubeconfig = "KUBECONFIG"
	// EnvSyncPeriod is the controller's --horizontal-pod-autoscaler-sync-period
	// on an existing cluster (default 15s, kube-controller-manager's), which
	// bounds how long specs wait for a reaction.
	EnvSyncPeriod = "E2E_SYNC_PERIOD"
	// EnvMetricSharingWindow is the controller's
	// --horizontal-pod-autoscaler-external-metric-sharing-window on an
	// existing cluster (default 15s): how stale an external metric may be.
	EnvMetricSharingWindow = "E2E_METRIC_SHARING_WINDOW"
	// EnvKubectl overrides the kubectl binary.
	EnvKubectl = "E2E_KUBECTL"
	// EnvControllerBinary and EnvAdapterBinary override the binaries the
	// local environment runs (default: _output/bin of the checkout).
	EnvControllerBinary = "E2E_HPA_CONTROLLER_MANAGER"
	EnvAdapterBinary    = "E2E_METRICS_ADAPTER"
	// EnvInTreeBinDir overrides the directory of the in-tree
	// kube-apiserver, kube-controller-manager and kube-scheduler (default:
	// _output/bin/intree of the checkout, where make intree puts them).
	EnvInTreeBinDir = "E2E_INTREE_BIN_DIR"
	// EnvControlPlaneBinDir names a directory with the kube-apiserver,
	// kube-controller-manager and kube-scheduler of another Kubernetes
	// release for the local environment (default: those of _output/bin):
	// make e2e-skew points it at the v1.36.3 ones of
	// hack/build-upstream.sh skew, to run the suite against the previous
	// minor. The in-tree mode takes all three from EnvInTreeBinDir.
	EnvControlPlaneBinDir = "E2E_CONTROL_PLANE_BIN_DIR"
)

// Mode is how kube-hpa's controller runs in the environment.
type Mode string

const (
	// ModeCRD: hpa-controller-manager manages the extended kind (a CRD)
	// and, with --manage-native-hpas, native autoscaling/v2 HPAs, beside a
	// kube-controller-manager without its HPA controller; a stock
	// kube-apiserver, so native HPAs cannot carry a fallback.
	ModeCRD Mode = "crd"
	// ModeInTree: the kube-apiserver and kube-controller-manager of make
	// intree, which serve the fallback in native autoscaling/v2 and apply it
	// in kube-controller-manager's own HPA controller (KEP-5679's series).
	// No CRD, no hpa-controller-manager, no webhook.
	ModeInTree Mode = "intree"
)

// ModeFromEnv reads EnvMode.
func ModeFromEnv() (Mode, error) {
	switch v := Mode(os.Getenv(EnvMode)); v {
	case "", ModeCRD:
		return ModeCRD, nil
	case ModeInTree:
		return ModeInTree, nil
	default:
		return "", fmt.Errorf("%s=%q: want %q or %q", EnvMode, v, ModeCRD, ModeInTree)
	}
}

// KEPHPAKind is the kind of HPA that the specs of KEP-5679 and KEP-2021
// create in mode: the extended kind in CRD mode (a stock API server drops
// the fallback of a native HPA), native autoscaling/v2 in in-tree mode.
func (m Mode) KEPHPAKind() HPAKind {
	if m == ModeInTree {
		return Native
	}
	return Extended
}

// Serves tells whether mode has a controller for HPAs of kind: the CRD
// mode manages both kinds, the in-tree mode only native ones.
func (m Mode) Serves(kind HPAKind) bool { return kind == Native || m != ModeInTree }

// Duration is a time.Duration that reads and writes as "5s" in JSON.
type Duration struct{ time.Duration }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a string such as "5s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	d.Duration = v
	return err
}

// ReplicaEndpoints are the ports and log of one controller replica of the
// local environment.
type ReplicaEndpoints struct {
	Name string `json:"name"`
	// MetricsPort is the plain HTTP --port that the suite scrapes and
	// probes: no token to mint, and a replica frozen with SIGSTOP fails
	// fast.
	MetricsPort int `json:"metricsPort"`
	WebhookPort int `json:"webhookPort"`
	// SecurePort is the --secure-port, one per replica since they share a
	// host.
	SecurePort int    `json:"securePort"`
	LogPath    string `json:"logPath"`
}

// Config is everything a ginkgo process needs to use the environment;
// process 1 builds it and hands it to every process as JSON.
type Config struct {
	// Local is true when process 1 started the environment itself.
	Local bool `json:"local"`
	// Mode is how the controller runs (ModeCRD, ModeInTree).
	Mode Mode `json:"mode"`
	// HPAKind is the kind of HPA the specs of the KEPs create
	// (Mode.KEPHPAKind).
	HPAKind HPAKind `json:"hpaKind"`
	// Kubeconfig is an administrator's kubeconfig.
	Kubeconfig string `json:"kubeconfig"`
	Kubectl    string `json:"kubectl"`
	RepoRoot   string `json:"repoRoot"`
	// MetricsNamespace and MetricsConfigMap hold the test metrics adapter's
	// values and faults.
	MetricsNamespace string `json:"metricsNamespace"`
	MetricsConfigMap string `json:"metricsConfigMap"`
	// ControllerNamespace holds the controller's ServiceAccount and Lease.
	ControllerNamespace string `json:"controllerNamespace"`
	// LeaseName is the controller's leader election Lease.
	LeaseName  string   `json:"leaseName"`
	SyncPeriod Duration `json:"syncPeriod"`
	// MetricSharingWindow is how old an external metric's answer may be
	// when the controller uses it (HPAs asking for the same metric within
	// the window share one fetch); specs add it to their waits.
	MetricSharingWindow Duration `json:"metricSharingWindow"`
	LeaseDuration       Duration `json:"leaseDuration"`
	// FeatureGates are the gates the controller (and its webhook, or in
	// in-tree mode kube-apiserver) run with, as far as the suite knows.
	FeatureGates map[string]bool `json:"featureGates"`

	// The rest is set only in the local environment.

	// ControlURL is process 1's control endpoint (ControlClient).
	ControlURL string `json:"controlURL,omitempty"`
	// AdapterControlURL is process 1's control endpoint of the metrics
	// adapter (Environment.Adapter).
	AdapterControlURL string `json:"adapterControlURL,omitempty"`
	// AdapterURL is the test metrics adapter's own HTTPS endpoint on
	// loopback, where it serves its fetch counters (ExternalFetches).
	AdapterURL string `json:"adapterURL,omitempty"`
	// SourceMetricsConfigMap holds the values of the second adapter, which
	// serves the metrics APIs under SourceCustomGroup and
	// SourceExternalGroup (KEP-6382's metric sources); empty where the
	// environment runs none.
	SourceMetricsConfigMap string `json:"sourceMetricsConfigMap,omitempty"`
	// ControllerManagerControlURL is process 1's control endpoint of
	// kube-controller-manager (Environment.ControllerManager), in in-tree
	// mode only.
	ControllerManagerControlURL string             `json:"controllerManagerControlURL,omitempty"`
	Replicas                    []ReplicaEndpoints `json:"replicas,omitempty"`
	// WebhookTLS locates the replicas' serving certificate, its CA and the
	// webhook configuration (Environment.WebhookCertificates).
	WebhookTLS *WebhookTLS `json:"webhookTLS,omitempty"`
	// PrometheusURL and ExporterURL are the environment's Prometheus and
	// the exporter it scrapes, with LocalOptions.Prometheus only.
	PrometheusURL string `json:"prometheusURL,omitempty"`
	ExporterURL   string `json:"exporterURL,omitempty"`
	// LogDir holds the log of every process of the environment.
	LogDir string `json:"logDir,omitempty"`
	// UpstreamE2ETest is upstream's e2e.test built from the patched tree
	// (hack/build-intree.sh --e2e), in in-tree mode only: it runs the
	// series' own specs of test/e2e/autoscaling against the environment.
	UpstreamE2ETest string `json:"upstreamE2ETest,omitempty"`
}

// Defaults that deploy/ and the test metrics adapter share with the suite.
const (
	defaultControllerNamespace = "kube-hpa-system"
	defaultLeaseName           = "hpa-controller-manager"
	defaultMetricsConfigMap    = "test-metrics"
	defaultLeaseDuration       = 15 * time.Second
	// upstreamSyncPeriod is kube-controller-manager's default, what a
	// cluster deployed from deploy/ runs with.
	upstreamSyncPeriod = 15 * time.Second
)

// ExternalConfig describes the existing cluster named by KUBECONFIG, in
// the mode of EnvMode. In in-tree mode its kube-apiserver and
// kube-controller-manager must run with
// --feature-gates=HPAExternalMetricFallback=true, and the metrics adapter
// as above; nothing of deploy/ but deploy/namespace.yaml is needed.
func ExternalConfig(repoRoot string) (Config, error) {
	mode, err := ModeFromEnv()
	if err != nil {
		return Config{}, err
	}
	cfg := Config{
		Mode:                mode,
		HPAKind:             mode.KEPHPAKind(),
		Kubeconfig:          os.Getenv(EnvKubeconfig),
		RepoRoot:            repoRoot,
		MetricsNamespace:    defaultControllerNamespace,
		MetricsConfigMap:    defaultMetricsConfigMap,
		ControllerNamespace: defaultControllerNamespace,
		LeaseName:           defaultLeaseName,
		SyncPeriod:          Duration{upstreamSyncPeriod},
		MetricSharingWindow: Duration{upstreamSyncPeriod},
		LeaseDuration:       Duration{defaultLeaseDuration},
		FeatureGates:        map[string]bool{"HPAExternalMetricFallback": true, "HPAExternalMetricFallbackStrategy": true, "HPAConfigurableSyncPeriod": true, "KubeHPADecisionTrace": true, "HPAMetricSource": true},
	}
	if mode == ModeInTree {
		cfg.FeatureGates = map[string]bool{"HPAExternalMetricFallback": true, "HPAMetricSource": true, "HPAConfigurableSyncPeriod": true}
	}
	for env, d := range map[string]*time.Duration{EnvSyncPeriod: &cfg.SyncPeriod.Duration, EnvMetricSharingWindow: &cfg.MetricSharingWindow.Duration} {
		if v := os.Getenv(env); v != "" {
			parsed, err := time.ParseDuration(v)
			if err != nil {
				return cfg, fmt.Errorf("%s=%q: %w", env, v, err)
			}
			*d = parsed
		}
	}
	kubectl, err := findKubectl(repoRoot)
	if err != nil {
		return cfg, err
	}
	cfg.Kubectl = kubectl
	return cfg, nil
}

// findKubectl prefers E2E_KUBECTL, then the kubectl that
// hack/build-upstream.sh built, then the one on PATH.
func findKubectl(repoRoot string) (string, error) {
	if v := os.Getenv(EnvKubectl); v != "" {
		return v, nil
	}
	built := filepath.Join(repoRoot, "_output", "bin", "kubectl")
	if _, err := os.Stat(built); err == nil {
		return built, nil
	}
	path, err := exec.LookPath("kubectl")
	if err != nil {
		return "", fmt.Errorf("no kubectl: set %s, run make upstream-binaries, or put kubectl on PATH", EnvKubectl)
	}
	return path, nil
}

// binaryPath is env's value, or name in repoRoot/_output/bin.
func binaryPath(repoRoot, env, name string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	return filepath.Join(repoRoot, "_output", "bin", name)
}
