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

// Package options holds the command-line options of hpa-controller-manager:
// their defaults (kube-controller-manager's, for every flag it has), their
// flag sets, their validation, and the config they become.
package options

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	apiserveroptions "k8s.io/apiserver/pkg/server/options"
	cliflag "k8s.io/component-base/cli/flag"
	componentbaseconfig "k8s.io/component-base/config"
	componentbaseoptions "k8s.io/component-base/config/options"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	// --logging-format=json, as kube-controller-manager offers it.
	_ "k8s.io/component-base/logs/json/register"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// The defaults of the metrics APIs' client limit: 2,000 HPAs of distinct
// metrics at a 15s period make 133 requests a second, and a burst of
// one and a half times the rate absorbs a restart's first pass.
const (
	DefaultMetricsAPIQPS   = 200
	DefaultMetricsAPIBurst = 300
)

// Options are the flags of hpa-controller-manager.
type Options struct {
	Kubeconfig   string
	Master       string
	KubeAPIQPS   float32
	KubeAPIBurst int32
	// MetricsAPIQPS and MetricsAPIBurst are the one client-side limit
	// that the requests to every metrics API share, apart from
	// KubeAPIQPS: a controller makes a metrics request per metric and
	// pass, far more than it makes of any other.
	MetricsAPIQPS   float32
	MetricsAPIBurst int32
	// KubeAPIContentType is the wire format of every client but the one
	// of the HPA custom resource, which is always JSON.
	KubeAPIContentType string

	LeaderElection componentbaseconfig.LeaderElectionConfiguration

	// Debugging is kube-controller-manager's --profiling and
	// --contention-profiling.
	Debugging componentbaseconfig.DebuggingConfiguration

	HPA HPAOptions

	Sharding ShardingOptions

	// ManageNativeHPAs makes the controller also reconcile native
	// autoscaling/v2 HPAs, for clusters whose kube-controller-manager runs
	// without its HPA controller.
	ManageNativeHPAs bool

	// Port serves /healthz, /readyz, /livez and /metrics over plain HTTP,
	// without authentication: off by default, for local runs only. It
	// listens on the secure port's --bind-address.
	Port int32

	SecureServing SecureServingOptions

	Webhook WebhookOptions

	FeatureGates featuregate.MutableVersionedFeatureGate
	Logs         *logsapi.LoggingConfiguration
}

// HPAOptions are kube-controller-manager's flags of the HPA controller.
type HPAOptions struct {
	ConcurrentSyncs              int32
	SyncPeriod                   time.Duration
	DownscaleStabilizationWindow time.Duration
	Tolerance                    float64
	CPUInitializationPeriod      time.Duration
	InitialReadinessDelay        time.Duration
	// MetricFetchTimeout bounds every metrics API call (ours: upstream
	// has no bound, so a hanging adapter stalls a worker).
	MetricFetchTimeout time.Duration
	// ExternalMetricSharingWindow lets HPAs asking for the same external
	// metric within it share one fetch (ours).
	ExternalMetricSharingWindow time.Duration
	// ScaleFromWatch reads the scale of Deployments, ReplicaSets,
	// StatefulSets and ReplicationControllers from watches instead of a
	// GET per reconcile (ours).
	ScaleFromWatch bool
	// SpreadReconciles reconciles each HPA at a stable offset within the
	// sync period instead of every HPA at once (ours).
	SpreadReconciles bool
}

// WebhookOptions configure the validating admission webhook's server. It
// listens on --bind-address with the secure port's TLS settings.
type WebhookOptions struct {
	Port int32
	// WebhookCertFile and WebhookKeyFile, when set, are the webhook's own
	// certificate, so that the API server's caBundle and Prometheus' CA
	// need not trust one certificate; else the webhook serves
	// --tls-cert-file's.
	WebhookCertFile string
	WebhookKeyFile  string
}

// webhookPair is the certificate and key the webhook serves: its own, or
// defaultCert's.
func (o *WebhookOptions) webhookPair(defaultCert apiserveroptions.CertKey) (cert, key string) {
	if o.WebhookCertFile != "" {
		return o.WebhookCertFile, o.WebhookKeyFile
	}
	return defaultCert.CertFile, defaultCert.KeyFile
}

// NewOptions returns the options at their defaults: kube-controller-
// manager's for the flags it has.
func NewOptions() (*Options, error) {
	gate := features.NewFeatureGate()
	if err := logsapi.AddFeatureGates(gate); err != nil {
		return nil, fmt.Errorf("registering logging feature gates: %w", err)
	}
	return &Options{
		KubeAPIQPS:         20,
		KubeAPIBurst:       30,
		MetricsAPIQPS:      DefaultMetricsAPIQPS,
		MetricsAPIBurst:    DefaultMetricsAPIBurst,
		KubeAPIContentType: ContentTypeProtobuf,
		LeaderElection: componentbaseconfig.LeaderElectionConfiguration{
			LeaderElect:       true,
			LeaseDuration:     durationOf(15 * time.Second),
			RenewDeadline:     durationOf(10 * time.Second),
			RetryPeriod:       durationOf(2 * time.Second),
			ResourceLock:      "leases",
			ResourceName:      "hpa-controller-manager",
			ResourceNamespace: "kube-hpa-system",
		},
		Debugging: componentbaseconfig.DebuggingConfiguration{EnableProfiling: true},
		HPA: HPAOptions{
			ConcurrentSyncs:              5,
			SyncPeriod:                   15 * time.Second,
			DownscaleStabilizationWindow: 5 * time.Minute,
			Tolerance:                    0.1,
			CPUInitializationPeriod:      5 * time.Minute,
			InitialReadinessDelay:        30 * time.Second,
			MetricFetchTimeout:           10 * time.Second,
			ExternalMetricSharingWindow:  15 * time.Second,
			ScaleFromWatch:               true,
			SpreadReconciles:             true,
		},
		Sharding:      ShardingOptions{Shards: DefaultShards},
		SecureServing: newSecureServingOptions(),
		Webhook:       WebhookOptions{Port: 9443},
		FeatureGates:  gate,
		Logs:          logsapi.NewLoggingConfiguration(),
	}, nil
}

// Flags returns the flags in named sections, as kube-controller-manager's
// --help shows them.
func (o *Options) Flags() cliflag.NamedFlagSets {
	var fss cliflag.NamedFlagSets
	o.addGenericFlags(fss.FlagSet("generic"))
	addDebuggingFlags(&o.Debugging, fss.FlagSet("debugging"))
	o.SecureServing.addFlags(&fss)
	componentbaseoptions.BindLeaderElectionFlags(&o.LeaderElection, fss.FlagSet("leader election"))
	o.Sharding.addFlags(fss.FlagSet("sharding"))
	o.HPA.addFlags(fss.FlagSet("horizontalpodautoscaling controller"))
	o.Webhook.addFlags(fss.FlagSet("admission webhook"))
	o.FeatureGates.AddFlag(fss.FlagSet("feature gate"))
	logsapi.AddFlags(o.Logs, fss.FlagSet("logs"))
	return fss
}

// addDebuggingFlags binds kube-controller-manager's debugging flags.
func addDebuggingFlags(d *componentbaseconfig.DebuggingConfiguration, fs *pflag.FlagSet) {
	fs.BoolVar(&d.EnableProfiling, "profiling", d.EnableProfiling, "Enable profiling via web interface host:port/debug/pprof/")
	fs.BoolVar(&d.EnableContentionProfiling, "contention-profiling", d.EnableContentionProfiling, "Enable block profiling, if profiling is enabled")
}

func (o *Options) addGenericFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to kubeconfig file with authorization and master location information (the in-cluster configuration is used when both this and --master are empty).")
	fs.StringVar(&o.Master, "master", o.Master, "The address of the Kubernetes API server (overrides any value in kubeconfig).")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "QPS to use while talking with kubernetes apiserver.")
	fs.Int32Var(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst to use while talking with kubernetes apiserver.")
	fs.Float32Var(&o.MetricsAPIQPS, "metrics-api-qps", o.MetricsAPIQPS, "QPS of the requests to the metrics APIs (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io and the groups metrics are routed to), all together and apart from --kube-api-qps. The default keeps up with 2,000 HPAs whose metrics are all distinct at the default 15s sync period (133 requests per second).")
	fs.Int32Var(&o.MetricsAPIBurst, "metrics-api-burst", o.MetricsAPIBurst, "Burst of the requests to the metrics APIs, all together.")
	fs.StringVar(&o.KubeAPIContentType, "kube-api-content-type", o.KubeAPIContentType, "Content type of requests sent to apiserver.")
	fs.BoolVar(&o.ManageNativeHPAs, "manage-native-hpas", o.ManageNativeHPAs, "Also reconcile native autoscaling/v2 HorizontalPodAutoscalers. Start kube-controller-manager with --controllers=*,-horizontalpodautoscaling first, so that two controllers never act on one HPA.")
	fs.Int32Var(&o.Port, "port", o.Port, "INSECURE, for local runs only: the port on which to serve /healthz, /readyz, /livez and /metrics over plain HTTP on --bind-address, with no authentication or authorization (and no /debug/pprof); 0 (the default) disables it. Use --secure-port in a cluster.")
}

func (o *HPAOptions) addFlags(fs *pflag.FlagSet) {
	fs.Int32Var(&o.ConcurrentSyncs, "concurrent-horizontal-pod-autoscaler-syncs", o.ConcurrentSyncs, "The number of horizontal pod autoscaler objects that are allowed to sync concurrently. Larger number = more responsive horizontal pod autoscaler objects processing, but more CPU (and network) load.")
	fs.DurationVar(&o.SyncPeriod, "horizontal-pod-autoscaler-sync-period", o.SyncPeriod, "The period for syncing the number of pods in horizontal pod autoscaler.")
	fs.DurationVar(&o.DownscaleStabilizationWindow, "horizontal-pod-autoscaler-downscale-stabilization", o.DownscaleStabilizationWindow, "The period for which autoscaler will look backwards and not scale down below any recommendation it made during that period.")
	fs.Float64Var(&o.Tolerance, "horizontal-pod-autoscaler-tolerance", o.Tolerance, "The minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling.")
	fs.DurationVar(&o.CPUInitializationPeriod, "horizontal-pod-autoscaler-cpu-initialization-period", o.CPUInitializationPeriod, "The period after pod start when CPU samples might be skipped.")
	fs.DurationVar(&o.InitialReadinessDelay, "horizontal-pod-autoscaler-initial-readiness-delay", o.InitialReadinessDelay, "The period after pod start during which readiness changes will be treated as initial readiness.")
	fs.DurationVar(&o.ExternalMetricSharingWindow, "horizontal-pod-autoscaler-external-metric-sharing-window", o.ExternalMetricSharingWindow, "HPAs that ask for the same external metric (name, selector and namespace) within this window share one fetch from the external metrics API; capped at the sync period; 0 fetches for every HPA, as kube-controller-manager does.")
	fs.BoolVar(&o.ScaleFromWatch, "horizontal-pod-autoscaler-scale-from-watch", o.ScaleFromWatch, "Read the scale of Deployments, ReplicaSets, StatefulSets and ReplicationControllers from watches of them (list and watch permission on those kinds) instead of a GET of their scale subresource on every reconcile; scale updates still go to the scale subresource, and a conflict sends the next read to the API. false reads every scale with a GET, as kube-controller-manager does.")
	fs.BoolVar(&o.SpreadReconciles, "horizontal-pod-autoscaler-spread-reconciles", o.SpreadReconciles, "Reconcile a new HPA at once, then each HPA at a stable offset within its sync period (from a hash of its first external metric, so that the HPAs sharing a metric pass together on one fetch, or else of its namespace and name), so that the API server and the metrics provider see an even rate instead of every HPA at once; no slot goes without a pass, a pass that rescaled or was rate-limited is followed one sync period after it started (as kube-controller-manager's), and shared external metric answers are then at most half a sync period old. false keeps kube-controller-manager's timing (every HPA one sync period after its last pass).")
	fs.DurationVar(&o.MetricFetchTimeout, "horizontal-pod-autoscaler-metric-fetch-timeout", o.MetricFetchTimeout, "The longest a single call to a metrics API may take before it counts as failed (a hanging metrics adapter cannot stall a worker).")
}

func (o *WebhookOptions) addFlags(fs *pflag.FlagSet) {
	fs.Int32Var(&o.Port, "webhook-port", o.Port, "The port on which the validating admission webhook is served over HTTPS, only when it has a certificate (--webhook-tls-cert-file or --tls-cert-file), whatever --secure-port says. It listens on --bind-address with the secure port's --tls-min-version, --tls-cipher-suites, --tls-curve-preferences, --disable-http2-serving, --http2-max-streams-per-connection, --permit-port-sharing and --permit-address-sharing.")
	fs.StringVar(&o.WebhookCertFile, "webhook-tls-cert-file", o.WebhookCertFile, "File containing the x509 certificate of the admission webhook alone, read again when it changes; by default --tls-cert-file's.")
	fs.StringVar(&o.WebhookKeyFile, "webhook-tls-private-key-file", o.WebhookKeyFile, "File containing the x509 private key matching --webhook-tls-cert-file.")
}

// Validate returns every problem with the options, each naming its flag.
func (o *Options) Validate() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.KubeAPIQPS <= 0 {
		add("--kube-api-qps must be greater than 0, got %v", o.KubeAPIQPS)
	}
	if o.KubeAPIBurst <= 0 {
		add("--kube-api-burst must be greater than 0, got %d", o.KubeAPIBurst)
	}
	if o.MetricsAPIQPS <= 0 {
		add("--metrics-api-qps must be greater than 0, got %v", o.MetricsAPIQPS)
	}
	if o.MetricsAPIBurst <= 0 {
		add("--metrics-api-burst must be greater than 0, got %d", o.MetricsAPIBurst)
	}
	if _, ok := acceptContentTypes(o.KubeAPIContentType); !ok {
		add("--kube-api-content-type must be %q or %q, got %q", ContentTypeJSON, ContentTypeProtobuf, o.KubeAPIContentType)
	}
	errs = append(errs, o.HPA.validate()...)
	errs = append(errs, validateLeaderElection(&o.LeaderElection)...)
	errs = append(errs, o.Sharding.validate(&o.LeaderElection)...)
	if o.Port < 0 || o.Port > 65535 {
		add("--port must be between 0 and 65535, got %d", o.Port)
	}
	errs = append(errs, o.SecureServing.validate()...)
	if o.Port != 0 && int(o.Port) == o.SecureServing.Serving.BindPort {
		add("--port and --secure-port must differ, both are %d", o.Port)
	}
	if o.Webhook.Port <= 0 || o.Webhook.Port > 65535 {
		add("--webhook-port must be between 1 and 65535, got %d", o.Webhook.Port)
	}
	if (o.Webhook.WebhookCertFile == "") != (o.Webhook.WebhookKeyFile == "") {
		add("--webhook-tls-cert-file and --webhook-tls-private-key-file must be given together")
	}
	if err := logsapi.Validate(o.Logs, o.FeatureGates, nil).ToAggregate(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

func (o *HPAOptions) validate() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.ConcurrentSyncs < 1 {
		add("--concurrent-horizontal-pod-autoscaler-syncs must be greater than 0, but got %d", o.ConcurrentSyncs)
	}
	if o.SyncPeriod <= 0 {
		add("--horizontal-pod-autoscaler-sync-period must be greater than 0, got %v", o.SyncPeriod)
	}
	if o.DownscaleStabilizationWindow < 0 {
		add("--horizontal-pod-autoscaler-downscale-stabilization must not be negative, got %v", o.DownscaleStabilizationWindow)
	}
	if !(o.Tolerance >= 0) { // also refuses NaN, which every comparison lets through
		add("--horizontal-pod-autoscaler-tolerance must not be negative, got %v", o.Tolerance)
	}
	if o.CPUInitializationPeriod < 0 {
		add("--horizontal-pod-autoscaler-cpu-initialization-period must not be negative, got %v", o.CPUInitializationPeriod)
	}
	if o.InitialReadinessDelay < 0 {
		add("--horizontal-pod-autoscaler-initial-readiness-delay must not be negative, got %v", o.InitialReadinessDelay)
	}
	if o.ExternalMetricSharingWindow < 0 {
		add("--horizontal-pod-autoscaler-external-metric-sharing-window must not be negative, got %v", o.ExternalMetricSharingWindow)
	}
	if o.MetricFetchTimeout <= 0 {
		add("--horizontal-pod-autoscaler-metric-fetch-timeout must be greater than 0, got %v", o.MetricFetchTimeout)
	}
	return errs
}

func validateLeaderElection(l *componentbaseconfig.LeaderElectionConfiguration) []error {
	if !l.LeaderElect {
		return nil
	}
	var errs []error
	if l.LeaseDuration.Duration <= 0 || l.RenewDeadline.Duration <= 0 || l.RetryPeriod.Duration <= 0 {
		errs = append(errs, errors.New("--leader-elect-lease-duration, --leader-elect-renew-deadline and --leader-elect-retry-period must be greater than 0"))
	}
	if l.LeaseDuration.Duration <= l.RenewDeadline.Duration {
		errs = append(errs, fmt.Errorf("--leader-elect-lease-duration (%v) must be greater than --leader-elect-renew-deadline (%v)",
			l.LeaseDuration.Duration, l.RenewDeadline.Duration))
	}
	if l.ResourceLock != "leases" {
		errs = append(errs, fmt.Errorf("--leader-elect-resource-lock must be \"leases\", got %q", l.ResourceLock))
	}
	if l.ResourceName == "" || l.ResourceNamespace == "" {
		errs = append(errs, errors.New("--leader-elect-resource-name and --leader-elect-resource-namespace must not be empty"))
	}
	return errs
}
