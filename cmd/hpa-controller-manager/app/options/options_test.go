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
	"time"

	"github.com/spf13/pflag"
)

func newTestOptions(t *testing.T) *Options {
	t.Helper()
	o, err := NewOptions()
	if err != nil {
		t.Fatalf("NewOptions: %v", err)
	}
	return o
}

// flagSet binds every flag section of o to one flag set.
func flagSet(o *Options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	for _, section := range o.Flags().FlagSets {
		fs.AddFlagSet(section)
	}
	return fs
}

// parse parses args into o.
func parse(t *testing.T, o *Options, args ...string) error {
	t.Helper()
	return flagSet(o).Parse(args)
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string // substring of the joined errors; "" means valid
	}{
		{name: "defaults are valid", args: nil},
		{name: "zero concurrent syncs are refused", args: []string{"--concurrent-horizontal-pod-autoscaler-syncs=0"}, wantErr: "--concurrent-horizontal-pod-autoscaler-syncs must be greater than 0"},
		{name: "zero sync period is refused", args: []string{"--horizontal-pod-autoscaler-sync-period=0s"}, wantErr: "--horizontal-pod-autoscaler-sync-period must be greater than 0"},
		{name: "negative tolerance is refused", args: []string{"--horizontal-pod-autoscaler-tolerance=-0.1"}, wantErr: "--horizontal-pod-autoscaler-tolerance must not be negative"},
		{name: "NaN tolerance is refused", args: []string{"--horizontal-pod-autoscaler-tolerance=NaN"}, wantErr: "--horizontal-pod-autoscaler-tolerance must not be negative"},
		{name: "negative downscale stabilization is refused", args: []string{"--horizontal-pod-autoscaler-downscale-stabilization=-1s"}, wantErr: "--horizontal-pod-autoscaler-downscale-stabilization must not be negative"},
		{name: "negative cpu initialization period is refused", args: []string{"--horizontal-pod-autoscaler-cpu-initialization-period=-1s"}, wantErr: "cpu-initialization-period must not be negative"},
		{name: "negative initial readiness delay is refused", args: []string{"--horizontal-pod-autoscaler-initial-readiness-delay=-1s"}, wantErr: "initial-readiness-delay must not be negative"},
		{name: "negative sharing window is refused", args: []string{"--horizontal-pod-autoscaler-external-metric-sharing-window=-1s"}, wantErr: "external-metric-sharing-window must not be negative"},
		{name: "zero sharing window turns sharing off", args: []string{"--horizontal-pod-autoscaler-external-metric-sharing-window=0s"}},
		{name: "zero metric fetch timeout is refused", args: []string{"--horizontal-pod-autoscaler-metric-fetch-timeout=0s"}, wantErr: "metric-fetch-timeout must be greater than 0"},
		{name: "zero api qps is refused", args: []string{"--kube-api-qps=0"}, wantErr: "--kube-api-qps must be greater than 0"},
		{name: "zero api burst is refused", args: []string{"--kube-api-burst=0"}, wantErr: "--kube-api-burst must be greater than 0"},
		{name: "zero metrics api qps is refused", args: []string{"--metrics-api-qps=0"}, wantErr: "--metrics-api-qps must be greater than 0"},
		{name: "negative metrics api burst is refused", args: []string{"--metrics-api-burst=-1"}, wantErr: "--metrics-api-burst must be greater than 0"},
		{name: "json api content type is accepted", args: []string{"--kube-api-content-type=application/json"}},
		{name: "api content type other than json or protobuf is refused", args: []string{"--kube-api-content-type=application/yaml"}, wantErr: `--kube-api-content-type must be "application/json" or "application/vnd.kubernetes.protobuf", got "application/yaml"`},
		{name: "api content type with parameters is refused", args: []string{"--kube-api-content-type=application/json; charset=utf-8"}, wantErr: "--kube-api-content-type must be"},
		{name: "lease not longer than renew deadline is refused", args: []string{"--leader-elect-lease-duration=10s", "--leader-elect-renew-deadline=10s"}, wantErr: "must be greater than --leader-elect-renew-deadline"},
		{name: "lock other than leases is refused", args: []string{"--leader-elect-resource-lock=endpoints"}, wantErr: `--leader-elect-resource-lock must be "leases"`},
		{name: "leader election settings are ignored when it is off", args: []string{"--leader-elect=false", "--leader-elect-resource-lock=endpoints"}},
		{name: "sharding with the default shards is accepted", args: []string{"--sharded"}},
		{name: "zero shards are refused", args: []string{"--sharded", "--shards=0"}, wantErr: "--shards"},
		{name: "shards are not checked without sharding", args: []string{"--shards=0"}},
		{name: "sharding without leader election is refused", args: []string{"--sharded", "--leader-elect=false"}, wantErr: "--sharded holds its shards with the Leases and timings of --leader-elect-*"},
		{name: "sharding with a renew deadline within the retry period is refused", args: []string{"--sharded", "--leader-elect-renew-deadline=2s"}, wantErr: "--sharded needs --leader-elect-renew-deadline"},
		{name: "port out of range is refused", args: []string{"--port=70000"}, wantErr: "--port must be between 0 and 65535"},
		{name: "port 0 disables the health server", args: []string{"--port=0"}},
		{name: "secure port out of range is refused", args: []string{"--secure-port=-1"}, wantErr: "--secure-port -1 must be between 0 and 65535"},
		{name: "secure port 0 disables the secure server", args: []string{"--secure-port=0"}},
		{name: "the plain and the secure port on one number are refused", args: []string{"--port=10257"}, wantErr: "--port and --secure-port must differ"},
		{name: "request header names of blanks are refused", args: []string{"--requestheader-username-headers= "}, wantErr: "requestheader-username-headers"},
		{name: "certificate without key is refused", args: []string{"--tls-cert-file=/tmp/cert"}, wantErr: "--tls-cert-file and --tls-private-key-file must be given together"},
		{name: "an unknown TLS version is refused", args: []string{"--tls-min-version=VersionTLS99"}, wantErr: `--tls-min-version: unknown tls version "VersionTLS99"`},
		{name: "an unknown cipher suite is refused", args: []string{"--tls-cipher-suites=TLS_NOT_A_SUITE"}, wantErr: "--tls-cipher-suites"},
		{name: "an unsupported curve is refused", args: []string{"--tls-curve-preferences=65000"}, wantErr: "--tls-curve-preferences: curve preference 65000 is not supported"},
		{name: "a key without its certificate is refused", args: []string{"--tls-private-key-file=/tmp/key"}, wantErr: "--tls-cert-file and --tls-private-key-file must be given together"},
		{name: "TLS 1.3 and a known suite are accepted", args: []string{"--tls-min-version=VersionTLS13", "--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}},
		{name: "a webhook certificate without its key is refused", args: []string{"--webhook-tls-cert-file=/tmp/cert"}, wantErr: "--webhook-tls-cert-file and --webhook-tls-private-key-file must be given together"},
		{name: "unknown logging format is refused", args: []string{"--logging-format=xml"}, wantErr: "format"},
		{name: "json logging format is accepted", args: []string{"--logging-format=json"}},
		{name: "json logging format is refused with the LoggingBetaOptions gate off", args: []string{"--logging-format=json", "--feature-gates=LoggingBetaOptions=false"}, wantErr: "LoggingBetaOptions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOptions(t)
			if err := parse(t, o, tc.args...); err != nil {
				t.Fatalf("parse: %v", err)
			}
			errs := o.Validate()
			var joined []string
			for _, e := range errs {
				joined = append(joined, e.Error())
			}
			all := strings.Join(joined, "; ")
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("Validate() = %s, want no error", all)
			case tc.wantErr != "" && !strings.Contains(all, tc.wantErr):
				t.Errorf("Validate() = %q, want an error containing %q", all, tc.wantErr)
			}
		})
	}
}

func TestBadFlagValueIsAParseError(t *testing.T) {
	cases := map[string]string{
		"duration that is not one":    "--horizontal-pod-autoscaler-sync-period=soon",
		"tolerance that is no number": "--horizontal-pod-autoscaler-tolerance=ten",
		"unknown feature gate":        "--feature-gates=NoSuchGate=true",
		"feature gate value not bool": "--feature-gates=HPAScaleToZero=maybe",
		"bind address not an IP":      "--bind-address=localhost",
		"SNI certificate without key": "--tls-sni-cert-key=sni.crt",
	}
	for name, arg := range cases {
		t.Run(name, func(t *testing.T) {
			if err := parse(t, newTestOptions(t), arg); err == nil {
				t.Errorf("parsing %s succeeded, want an error", arg)
			}
		})
	}
}

func TestFeatureGatesFlagSetsTheGate(t *testing.T) {
	o := newTestOptions(t)
	if err := parse(t, o, "--feature-gates=HPAExternalMetricFallback=true,HPAScaleToZero=false"); err != nil {
		t.Fatal(err)
	}
	if !o.FeatureGates.Enabled("HPAExternalMetricFallback") || o.FeatureGates.Enabled("HPAScaleToZero") {
		t.Errorf("gates not applied: fallback=%v zero=%v", o.FeatureGates.Enabled("HPAExternalMetricFallback"), o.FeatureGates.Enabled("HPAScaleToZero"))
	}
}

func TestConfigCarriesTheFlags(t *testing.T) {
	o := newTestOptions(t)
	if err := parse(t, o, "--master=https://127.0.0.1:6443", "--kube-api-qps=50", "--kube-api-burst=80", "--kube-api-content-type=application/json",
		"--horizontal-pod-autoscaler-sync-period=5s", "--concurrent-horizontal-pod-autoscaler-syncs=9", "--horizontal-pod-autoscaler-scale-from-watch=false",
		"--horizontal-pod-autoscaler-spread-reconciles=false", "--metrics-api-qps=400", "--metrics-api-burst=600",
		"--bind-address=127.0.0.1", "--port=10999", "--tls-cert-file=c", "--tls-private-key-file=k", "--webhook-port=9444", "--sharded", "--shards=32"); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatalf("Config: %v", err)
	}
	if cfg.RESTConfig.Host != "https://127.0.0.1:6443" || cfg.RESTConfig.QPS != 50 || cfg.RESTConfig.Burst != 80 || cfg.RESTConfig.UserAgent != UserAgent {
		t.Errorf("rest config = host %q qps %v burst %d agent %q", cfg.RESTConfig.Host, cfg.RESTConfig.QPS, cfg.RESTConfig.Burst, cfg.RESTConfig.UserAgent)
	}
	if cfg.RESTConfig.ContentType != "application/json" || cfg.RESTConfig.AcceptContentTypes != "application/json" {
		t.Errorf("rest config content type %q, accept %q, want JSON", cfg.RESTConfig.ContentType, cfg.RESTConfig.AcceptContentTypes)
	}
	if cfg.HPA.SyncPeriod != 5*time.Second || cfg.HPA.ConcurrentSyncs != 9 || cfg.HPA.ScaleFromWatch || cfg.HPA.SpreadReconciles ||
		cfg.HPA.MetricsAPIQPS != 400 || cfg.HPA.MetricsAPIBurst != 600 {
		t.Errorf("hpa config = %+v", cfg.HPA)
	}
	if !cfg.Sharding.Enabled || cfg.Sharding.Shards != 32 {
		t.Errorf("sharding config = %+v", cfg.Sharding)
	}
	if cfg.HealthAddress != "127.0.0.1:10999" || servingAddress(cfg.Webhook.Serving) != "127.0.0.1:9444" || cfg.Webhook.CertFile != "c" {
		t.Errorf("addresses = health %q webhook %q %+v", cfg.HealthAddress, servingAddress(cfg.Webhook.Serving), cfg.Webhook)
	}
}

func TestRESTConfigSpeaksTheChosenContentType(t *testing.T) {
	cases := []struct {
		name       string
		args       []string
		wantType   string
		wantAccept string
	}{
		{name: "protobuf by default, with JSON acceptable as a fallback", wantType: "application/vnd.kubernetes.protobuf", wantAccept: "application/vnd.kubernetes.protobuf,application/json"},
		{name: "protobuf when asked, with JSON acceptable as a fallback", args: []string{"--kube-api-content-type=application/vnd.kubernetes.protobuf"}, wantType: "application/vnd.kubernetes.protobuf", wantAccept: "application/vnd.kubernetes.protobuf,application/json"},
		{name: "JSON only when asked", args: []string{"--kube-api-content-type=application/json"}, wantType: "application/json", wantAccept: "application/json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOptions(t)
			if err := parse(t, o, append([]string{"--master=https://127.0.0.1:6443"}, tc.args...)...); err != nil {
				t.Fatal(err)
			}
			if errs := o.Validate(); len(errs) > 0 {
				t.Fatalf("Validate: %v", errs)
			}
			cfg, err := o.restConfig()
			if err != nil {
				t.Fatalf("restConfig: %v", err)
			}
			if got := cfg.ContentType; got != tc.wantType {
				t.Errorf("ContentType = %q, want %q", got, tc.wantType)
			}
			if got := cfg.AcceptContentTypes; got != tc.wantAccept {
				t.Errorf("AcceptContentTypes = %q, want %q", got, tc.wantAccept)
			}
		})
	}
}

func TestConfigRefusesInvalidOptions(t *testing.T) {
	o := newTestOptions(t)
	if err := parse(t, o, "--master=https://127.0.0.1:6443", "--concurrent-horizontal-pod-autoscaler-syncs=0"); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Config(); err == nil || !strings.Contains(err.Error(), "concurrent-horizontal-pod-autoscaler-syncs") {
		t.Errorf("Config() error = %v, want the flag named", err)
	}
}

// TestApplyLoggingRefusesBadFlags checks that bad logging flags stop the
// command with an error before anything is applied. Good ones are not
// applied here: component-base takes a logging configuration once per
// process, and the e2e suite runs the binary with them.
func TestApplyLoggingRefusesBadFlags(t *testing.T) {
	o := newTestOptions(t)
	if err := parse(t, o, "--logging-format=xml"); err != nil {
		t.Fatal(err)
	}
	err := o.ApplyLogging()
	if err == nil || !strings.Contains(err.Error(), "applying logging configuration") || !strings.Contains(err.Error(), "format") {
		t.Errorf("ApplyLogging() = %v, want an error about the logging format", err)
	}
}
