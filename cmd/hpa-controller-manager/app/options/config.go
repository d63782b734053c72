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
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// UserAgent is how the binary introduces itself to the API server.
const UserAgent = "hpa-controller-manager"

// The content types --kube-api-content-type accepts.
const (
	ContentTypeJSON     = runtime.ContentTypeJSON
	ContentTypeProtobuf = runtime.ContentTypeProtobuf
)

// acceptContentTypes returns the Accept header that goes with a
// --kube-api-content-type, and whether that content type is accepted at
// all. Protobuf keeps JSON acceptable: the API server answers in JSON what
// it cannot encode as protobuf (custom resources, aggregated APIs whose
// kinds have no protobuf form), and the client decodes either.
func acceptContentTypes(contentType string) (string, bool) {
	switch contentType {
	case ContentTypeJSON:
		return ContentTypeJSON, true
	case ContentTypeProtobuf:
		return ContentTypeProtobuf + "," + ContentTypeJSON, true
	}
	return "", false
}

// ApplyLogging validates the logging flags and makes them the process's
// logging configuration. component-base allows that once per process, so
// it is a step of its own, taken by the command before Config, as
// kube-controller-manager does.
func (o *Options) ApplyLogging() error {
	if err := logsapi.ValidateAndApply(o.Logs, o.FeatureGates); err != nil {
		return fmt.Errorf("applying logging configuration: %w", err)
	}
	return nil
}

// Config validates the options and returns the configuration to run with.
// It changes nothing outside o, so it can be called more than once.
func (o *Options) Config() (*config.Config, error) {
	if errs := o.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	restConfig, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	cfg := &config.Config{
		RESTConfig:       restConfig,
		LeaderElection:   o.LeaderElection,
		Debugging:        o.Debugging,
		ManageNativeHPAs: o.ManageNativeHPAs,
		Sharding:         config.Sharding{Enabled: o.Sharding.Enabled, Shards: int(o.Sharding.Shards)},
		FeatureGates:     o.FeatureGates,
		HPA: config.HPA{
			ConcurrentSyncs:              int(o.HPA.ConcurrentSyncs),
			SyncPeriod:                   o.HPA.SyncPeriod,
			DownscaleStabilizationWindow: o.HPA.DownscaleStabilizationWindow,
			Tolerance:                    o.HPA.Tolerance,
			CPUInitializationPeriod:      o.HPA.CPUInitializationPeriod,
			InitialReadinessDelay:        o.HPA.InitialReadinessDelay,
			MetricFetchTimeout:           o.HPA.MetricFetchTimeout,
			MetricsAPIQPS:                o.MetricsAPIQPS,
			MetricsAPIBurst:              int(o.MetricsAPIBurst),
			ExternalMetricSharingWindow:  o.HPA.ExternalMetricSharingWindow,
			ScaleFromWatch:               o.HPA.ScaleFromWatch,
			SpreadReconciles:             o.HPA.SpreadReconciles,
		},
	}
	if o.Port > 0 {
		cfg.HealthAddress = o.SecureServing.address(o.Port)
	}
	cfg.SecureServing = o.SecureServing.config(o.Kubeconfig)
	if cert, key := o.Webhook.webhookPair(o.SecureServing.Serving.ServerCert.CertKey); cert != "" {
		cfg.Webhook = config.Webhook{
			Serving:  o.SecureServing.webhookServing(o.Webhook.Port),
			CertFile: cert,
			KeyFile:  key,
		}
	}
	return cfg, nil
}

func (o *Options) restConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags(o.Master, o.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("building client configuration from --kubeconfig/--master: %w", err)
	}
	cfg.QPS = o.KubeAPIQPS
	cfg.Burst = int(o.KubeAPIBurst)
	cfg.ContentType = o.KubeAPIContentType
	cfg.AcceptContentTypes, _ = acceptContentTypes(o.KubeAPIContentType) // Validate refused the others
	cfg.UserAgent = UserAgent
	return cfg, nil
}
