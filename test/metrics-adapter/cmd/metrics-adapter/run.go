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
	"context"
	"fmt"
	"net/http"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	apimetrics "sigs.k8s.io/custom-metrics-apiserver/pkg/apiserver/metrics"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/dynamicmapper"

	"github.com/kube-hpa/kube-hpa/test/metrics-adapter/adapter"
)

// sourceDigest identifies the sources the binary was built from; the
// build script sets it with -ldflags -X so that a stale binary shows.
var sourceDigest = "unknown"

// run serves the metrics until ctx ends.
func run(ctx context.Context, o *options) error {
	logger := klog.FromContext(ctx)
	logger.Info("Starting the test metrics adapter", "sourceDigest", sourceDigest,
		"configMap", klog.KRef(o.configMapNamespace, o.configMapName), "prometheusURL", o.prometheusURL, "groupAliases", o.groupAliases)
	aliases := groupAliases(o.groupAliases)
	if err := aliases.validate(); err != nil {
		return err
	}

	restConfig, err := o.base.ClientConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("building a client: %w", err)
	}
	metadataClient, err := metadata.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("building a metadata client: %w", err)
	}
	mapper, err := o.base.RESTMapper()
	if err != nil {
		return err
	}
	if regenerating, ok := mapper.(*dynamicmapper.RegeneratingDiscoveryRESTMapper); ok && o.base.DiscoveryInterval > 0 {
		// Kinds created after start (CRDs of a test) become known.
		regenerating.RunUntil(ctx.Done())
	}

	source := adapter.NewConfigMapSource(client, o.configMapNamespace, o.configMapName)
	if err := source.Start(ctx); err != nil {
		return err
	}
	counter := adapter.NewFetchCounter()
	fetchLog := adapter.NewFetchLog(0)
	provider, err := adapter.New(adapter.Options{
		Source:   source,
		Mapper:   mapper,
		Lister:   adapter.NewMetadataLister(metadataClient, mapper),
		Counter:  counter,
		FetchLog: fetchLog,
		Prometheus: adapter.NewPrometheusPool(adapter.PrometheusPoolOptions{
			DefaultURL: o.prometheusURL,
			Timeout:    o.prometheusTimeout,
		}),
	})
	if err != nil {
		return err
	}
	o.base.WithExternalMetrics(provider)
	o.base.WithCustomMetrics(provider)

	if err := apimetrics.RegisterMetrics(legacyregistry.Register); err != nil {
		return fmt.Errorf("registering the library's metrics: %w", err)
	}
	legacyregistry.CustomMustRegister(counter.Collector())

	config, err := o.base.Config()
	if err != nil {
		return err
	}
	buildChain := config.GenericConfig.BuildHandlerChainFunc
	config.GenericConfig.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
		return aliases.handler(buildChain(h, c))
	}
	server, err := o.base.Server()
	if err != nil {
		return err
	}
	server.GenericAPIServer.Handler.NonGoRestfulMux.Handle(fetchesPath, counter)
	server.GenericAPIServer.Handler.NonGoRestfulMux.Handle(fetchTimesPath, fetchLog)
	return o.base.Run(ctx)
}
