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

package options

import (
	"strings"
	"testing"
)

// checkDefaults checks that each flag of want exists with its default.
func checkDefaults(t *testing.T, want map[string]string, source string) {
	t.Helper()
	fs := flagSet(newTestOptions(t))
	for name, def := range want {
		t.Run(name, func(t *testing.T) {
			f := fs.Lookup(name)
			if f == nil {
				t.Fatalf("flag --%s is missing", name)
			}
			if f.DefValue != def {
				t.Errorf("--%s defaults to %q, %s is %q", name, f.DefValue, source, def)
			}
		})
	}
}

// TestFlagDefaultsMatchKubeControllerManager pins each shared flag to the
// default kube-controller-manager v1.36.3 gives it (its HPA controller
// config defaults and its generic client and leader election defaults).
func TestFlagDefaultsMatchKubeControllerManager(t *testing.T) {
	kcmDefaults := map[string]string{
		"concurrent-horizontal-pod-autoscaler-syncs":          "5",
		"horizontal-pod-autoscaler-sync-period":               "15s",
		"horizontal-pod-autoscaler-downscale-stabilization":   "5m0s",
		"horizontal-pod-autoscaler-tolerance":                 "0.1",
		"horizontal-pod-autoscaler-cpu-initialization-period": "5m0s",
		"horizontal-pod-autoscaler-initial-readiness-delay":   "30s",
		"kube-api-qps":                                 "20",
		"kube-api-burst":                               "30",
		"kube-api-content-type":                        "application/vnd.kubernetes.protobuf",
		"kubeconfig":                                   "",
		"master":                                       "",
		"leader-elect":                                 "true",
		"leader-elect-lease-duration":                  "15s",
		"leader-elect-renew-deadline":                  "10s",
		"leader-elect-retry-period":                    "2s",
		"profiling":                                    "true",
		"contention-profiling":                         "false",
		"leader-elect-resource-lock":                   "leases",
		"feature-gates":                                "",
		"v":                                            "0",
		"logging-format":                               "text",
		"bind-address":                                 "0.0.0.0",
		"secure-port":                                  "10257",
		"tls-min-version":                              "",
		"tls-cipher-suites":                            "[]",
		"tls-curve-preferences":                        "[]",
		"tls-cert-file":                                "",
		"tls-private-key-file":                         "",
		"tls-sni-cert-key":                             "[]",
		"cert-dir":                                     "",
		"http2-max-streams-per-connection":             "0",
		"disable-http2-serving":                        "false",
		"permit-port-sharing":                          "false",
		"permit-address-sharing":                       "false",
		"authentication-kubeconfig":                    "",
		"authentication-skip-lookup":                   "false",
		"authentication-token-webhook-cache-ttl":       "10s",
		"authentication-tolerate-lookup-failure":       "false",
		"client-ca-file":                               "",
		"requestheader-client-ca-file":                 "",
		"authorization-kubeconfig":                     "",
		"authorization-webhook-cache-authorized-ttl":   "10s",
		"authorization-webhook-cache-unauthorized-ttl": "10s",
		"authorization-always-allow-paths":             "[/healthz,/readyz,/livez]",
	}
	checkDefaults(t, kcmDefaults, "kube-controller-manager's default")
}

// TestOwnFlagDefaults pins the defaults of the flags kube-controller-
// manager does not have, as the table of differing flags of docs/flags.md lists
// them.
func TestOwnFlagDefaults(t *testing.T) {
	own := map[string]string{
		"manage-native-hpas":                                       "false",
		"horizontal-pod-autoscaler-metric-fetch-timeout":           "10s",
		"horizontal-pod-autoscaler-external-metric-sharing-window": "15s",
		"horizontal-pod-autoscaler-scale-from-watch":               "true",
		"horizontal-pod-autoscaler-spread-reconciles":              "true",
		"sharded":                      "false",
		"shards":                       "16",
		"webhook-tls-cert-file":        "",
		"webhook-tls-private-key-file": "",
		// kube-controller-manager has no plain HTTP port any more; ours is
		// off unless asked for.
		"port": "0",
	}
	checkDefaults(t, own, "docs/flags.md's")
}

func TestFlagSectionsFollowKubeControllerManagerHelp(t *testing.T) {
	o := newTestOptions(t)
	got := o.Flags().Order
	want := []string{"generic", "debugging", "secure serving", "authentication", "authorization", "leader election", "sharding", "horizontalpodautoscaling controller", "admission webhook", "feature gate", "logs"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sections = %q, want %q", got, want)
	}
}

func TestFeatureGatesFlagListsKubeHPAGates(t *testing.T) {
	o := newTestOptions(t)
	fss := o.Flags()
	usage := fss.FlagSet("feature gate").Lookup("feature-gates").Usage
	for _, gate := range []string{"HPAExternalMetricFallback=true|false (ALPHA - default=false)", "HPAConfigurableSyncPeriod=true|false (ALPHA - default=false)", "KubeHPADecisionTrace=true|false (ALPHA - default=false)", "HPAScaleToZero=true|false (BETA - default=true)", "HPAGeneration=true|false (BETA - default=true)", "StaleControllerConsistencyHPA=true|false (BETA - default=true)", "HPAOptimizedSelectorStore=true|false (BETA - default=true)", "PodLevelResources=true|false (BETA - default=true)"} {
		if !strings.Contains(usage, gate) {
			t.Errorf("--feature-gates help does not list %q:\n%s", gate, usage)
		}
	}
}
