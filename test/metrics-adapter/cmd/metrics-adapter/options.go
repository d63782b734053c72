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

package main

import (
	"time"

	"github.com/spf13/pflag"
	basecmd "sigs.k8s.io/custom-metrics-apiserver/pkg/cmd"
	serveroptions "sigs.k8s.io/custom-metrics-apiserver/pkg/cmd/options"
)

// Defaults of the flags this adapter adds or changes.
const (
	defaultConfigMapNamespace = "kube-hpa-system"
	defaultConfigMapName      = "test-metrics"
	defaultSecurePort         = 4443
	defaultDiscoveryInterval  = 10 * time.Second
	// defaultPrometheusTimeout is below the HPA controller's bounds on a
	// fetch, so that a hanging Prometheus answers the controller a time-out
	// status naming Prometheus, as a production adapter would: its metric
	// fetch time-out (10s) and its fetch budget of half the sync period
	// (2.5s at the 5s period of the e2e suite).
	defaultPrometheusTimeout = 2 * time.Second
	// fetchesPath serves the fetch counters as JSON.
	fetchesPath = "/debug/fetches"
	// fetchTimesPath serves the times of the external metric fetches of
	// each series as JSON.
	fetchTimesPath = "/debug/fetch-times"
)

// options are the adapter's flags: those of custom-metrics-apiserver's
// AdapterBase (serving, delegated authentication and authorization) and
// this adapter's own.
type options struct {
	base basecmd.AdapterBase

	kubeconfig         string
	configMapNamespace string
	configMapName      string
	prometheusURL      string
	prometheusTimeout  time.Duration
	groupAliases       map[string]string
}

// newOptions registers every flag on fs with its default.
func newOptions(fs *pflag.FlagSet) *options {
	o := &options{
		configMapNamespace: defaultConfigMapNamespace,
		configMapName:      defaultConfigMapName,
		prometheusTimeout:  defaultPrometheusTimeout,
	}
	server := serveroptions.NewCustomMetricsAdapterServerOptions()
	server.SecureServing.BindPort = defaultSecurePort
	// Without --tls-cert-file the serving certificate is self-signed and
	// kept in memory, instead of being written under the working directory.
	server.SecureServing.ServerCert.CertDirectory = ""
	// Counters are for anyone on the machine, like the health checks.
	server.Authorization.AlwaysAllowPaths = append(server.Authorization.AlwaysAllowPaths, "/metrics", fetchesPath, fetchTimesPath)

	o.base.Name = "kube-hpa-test-metrics-adapter"
	o.base.FlagSet = fs
	o.base.CustomMetricsAdapterServerOptions = server
	o.base.DiscoveryInterval = defaultDiscoveryInterval
	o.base.InstallFlags()

	fs.StringVar(&o.kubeconfig, "kubeconfig", o.kubeconfig,
		"kubeconfig of the cluster: watched for the ConfigMap, and used for delegated authentication and "+
			"authorization unless --lister-kubeconfig, --authentication-kubeconfig or --authorization-kubeconfig say otherwise. "+
			"Empty means in-cluster configuration.")
	fs.StringVar(&o.configMapNamespace, "configmap-namespace", o.configMapNamespace,
		"namespace of the ConfigMap that holds the metric values and faults")
	fs.StringVar(&o.configMapName, "configmap-name", o.configMapName,
		"name of the ConfigMap that holds the metric values and faults")
	fs.StringVar(&o.prometheusURL, "prometheus-url", o.prometheusURL,
		"Prometheus server that answers the external metrics whose ConfigMap value is a PromQL query "+
			"(a value may name another server with prometheus:); empty: only such values answer")
	fs.StringToStringVar(&o.groupAliases, "group-alias", o.groupAliases,
		"API groups to serve as custom.metrics.k8s.io or external.metrics.k8s.io as well, alias=group, for "+
			"an APIService of the alias (KEP-6382's metric sources): e.g. external.second.example.com=external.metrics.k8s.io")
	fs.DurationVar(&o.prometheusTimeout, "prometheus-timeout", o.prometheusTimeout,
		"bound of one PromQL query; a Prometheus slower than this answers a time-out status (0: no bound but the request's)")
	return o
}

// complete lets --kubeconfig stand for the three kubeconfig flags of the
// library that were not given.
func (o *options) complete() {
	if o.kubeconfig == "" {
		return
	}
	if o.base.RemoteKubeConfigFile == "" {
		o.base.RemoteKubeConfigFile = o.kubeconfig
	}
	if o.base.Authentication.RemoteKubeConfigFile == "" {
		o.base.Authentication.RemoteKubeConfigFile = o.kubeconfig
	}
	if o.base.Authorization.RemoteKubeConfigFile == "" {
		o.base.Authorization.RemoteKubeConfigFile = o.kubeconfig
	}
}
