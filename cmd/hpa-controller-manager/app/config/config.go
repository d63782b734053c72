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

// Package config is the validated, ready-to-run configuration of
// hpa-controller-manager: what the options became once checked, with the
// client configuration built.
package config

import (
	apiserveroptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/rest"
	componentbaseconfig "k8s.io/component-base/config"
	"k8s.io/component-base/featuregate"
)

// Config is everything Run needs.
type Config struct {
	// RESTConfig reaches the API server, with the QPS, burst and content
	// type of the flags and the binary's user agent. Clients that change
	// what they are given (the scale client) get a copy.
	RESTConfig *rest.Config

	LeaderElection componentbaseconfig.LeaderElectionConfiguration
	// Debugging serves /debug/pprof on the servers of /metrics.
	Debugging        componentbaseconfig.DebuggingConfiguration
	HPA              HPA
	ManageNativeHPAs bool
	Sharding         Sharding

	// HealthAddress serves /healthz, /readyz, /livez and /metrics over
	// plain HTTP with no authentication (local runs); empty disables.
	HealthAddress string
	SecureServing SecureServing
	Webhook       Webhook

	FeatureGates featuregate.FeatureGate
}

// HPA are the settings of the HPA controller.
type HPA struct {
	ConcurrentSyncs              int
	SyncPeriod                   Duration
	DownscaleStabilizationWindow Duration
	Tolerance                    float64
	CPUInitializationPeriod      Duration
	InitialReadinessDelay        Duration
	MetricFetchTimeout           Duration
	// MetricsAPIQPS and MetricsAPIBurst limit the requests to every
	// metrics API together.
	MetricsAPIQPS               float32
	MetricsAPIBurst             int
	ExternalMetricSharingWindow Duration
	ScaleFromWatch              bool
	SpreadReconciles            bool
}

// Sharding splits the HPAs between replicas; when Enabled, the leader
// election settings time the shard Leases and ResourceName names them.
type Sharding struct {
	Enabled bool
	Shards  int
}

// Webhook configures the admission webhook's HTTPS server; nil Serving
// disables it.
type Webhook struct {
	// Serving is the secure port's serving options moved to
	// --webhook-port, with no certificate of theirs: the same address,
	// TLS and HTTP/2 settings. Run binds the port.
	Serving *apiserveroptions.SecureServingOptions
	// CertFile and KeyFile are the webhook's certificate, read again when
	// the files change.
	CertFile string
	KeyFile  string
}

// SecureServing configures the HTTPS server of /healthz, /readyz, /livez,
// /metrics and /debug/pprof; nil Serving disables it.
type SecureServing struct {
	// Serving is k8s.io/apiserver's serving options as the flags left
	// them (--bind-address, --secure-port, --cert-dir, --tls-*, HTTP/2):
	// Run makes the self-signed certificate when no --tls-cert-file is
	// given and binds the port, so that building the configuration does
	// neither.
	Serving *apiserveroptions.SecureServingOptions
	// Authentication and Authorization delegate each request to the API
	// server (TokenReview, SubjectAccessReview); they are applied at Run,
	// since applying them reads the cluster's authentication ConfigMap.
	Authentication *apiserveroptions.DelegatingAuthenticationOptions
	Authorization  *apiserveroptions.DelegatingAuthorizationOptions
}
