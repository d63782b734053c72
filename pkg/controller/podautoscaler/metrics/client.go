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

package metrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	resourceclient "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"
)

const (
	// DefaultFetchTimeout bounds one fetch when Options.FetchTimeout is 0.
	DefaultFetchTimeout = 10 * time.Second
	// DefaultRefreshInterval is how often Run forgets what discovery told
	// it, when Options.RefreshInterval is 0. It matches the HPA sync period,
	// which is what kube-controller-manager uses for the same purpose.
	DefaultRefreshInterval = 15 * time.Second
)

// Options configures NewRESTClient. Config is needed only to build the API
// clients that are not given; tests pass the three clients (usually fakes)
// and no Config.
type Options struct {
	// Config is the base configuration for the clients built here. Its
	// time-out is replaced by FetchTimeout.
	Config *rest.Config

	// ResourceClient reads metrics.k8s.io; built from Config when nil.
	ResourceClient resourceclient.PodMetricsesGetter
	// CustomClient reads custom.metrics.k8s.io; built from Config when nil,
	// choosing the API version the cluster prefers through Discovery.
	CustomClient customclient.CustomMetricsClient
	// ExternalClient reads external.metrics.k8s.io; built from Config when
	// nil.
	ExternalClient externalclient.ExternalMetricsClient

	// Discovery finds the custom metrics API version, and feeds the default
	// RESTMapper. Built from Config when nil. Used only to build
	// CustomClient.
	Discovery discovery.DiscoveryInterface
	// RESTMapper maps the kind of a described object to the resource the
	// custom metrics API names it by. When nil, a discovery-backed mapper is
	// built and Run resets it periodically. Used only to build CustomClient.
	RESTMapper meta.RESTMapper

	// SourceClients gives the clients of metrics routed to another API
	// group (KEP-6382). Built from Config when nil, holding at most
	// MaxSourceClients groups; without Config, routed metrics fail.
	SourceClients SourceClients
	// MaxSourceClients bounds the groups SourceClients keeps;
	// DefaultMaxSourceClients when 0.
	MaxSourceClients int
	// Logger receives the warning of a group evicted from SourceClients.
	Logger logr.Logger

	// QPS and Burst are one client-side limit that every request built
	// from Config shares (each API, each routed group, discovery), in
	// place of Config's per-client limits; zero QPS keeps Config's.
	QPS   float32
	Burst int

	// FetchTimeout bounds every fetch; DefaultFetchTimeout when 0.
	FetchTimeout time.Duration
	// RefreshInterval is how often Run drops cached discovery results;
	// DefaultRefreshInterval when 0.
	RefreshInterval time.Duration
	// Clock drives Run's ticker; the real clock when nil.
	Clock clock.WithTicker
}

// RESTClient is the Client that reads the aggregated metrics APIs.
type RESTClient struct {
	resource resourceclient.PodMetricsesGetter
	custom   customclient.CustomMetricsClient
	external externalclient.ExternalMetricsClient
	sources  SourceClients

	fetchTimeout    time.Duration
	refreshInterval time.Duration
	clock           clock.WithTicker
	// refreshers drop what was learnt from discovery, so that an adapter
	// that is installed, upgraded or moved is picked up without a restart.
	refreshers []func()
}

var _ Client = &RESTClient{}

// NewRESTClient returns a Client for the metrics APIs, building from
// opts.Config whichever API client opts does not carry.
func NewRESTClient(opts Options) (*RESTClient, error) {
	c := &RESTClient{
		resource:        opts.ResourceClient,
		custom:          opts.CustomClient,
		external:        opts.ExternalClient,
		sources:         opts.SourceClients,
		fetchTimeout:    opts.FetchTimeout,
		refreshInterval: opts.RefreshInterval,
		clock:           opts.Clock,
	}
	if c.fetchTimeout <= 0 {
		c.fetchTimeout = DefaultFetchTimeout
	}
	if c.refreshInterval <= 0 {
		c.refreshInterval = DefaultRefreshInterval
	}
	if c.clock == nil {
		c.clock = clock.RealClock{}
	}
	if opts.Logger.GetSink() == nil {
		opts.Logger = klog.Background()
	}
	if c.resource != nil && c.custom != nil && c.external != nil && (c.sources != nil || opts.Config == nil) {
		return c, nil
	}
	if opts.Config == nil {
		return nil, errors.New("metrics: Options.Config is required to build the metrics API clients that are not given")
	}
	if err := c.buildMissingClients(opts); err != nil {
		return nil, err
	}
	return c, nil
}

// buildMissingClients fills in the API clients that opts did not carry.
func (c *RESTClient) buildMissingClients(opts Options) error {
	cfg := metricsConfig(opts, c.fetchTimeout)

	if c.resource == nil {
		client, err := resourceclient.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("building the resource metrics client: %w", err)
		}
		c.resource = client
	}
	if c.external == nil {
		client, err := externalclient.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("building the external metrics client: %w", err)
		}
		c.external = client
	}
	mapper := opts.RESTMapper
	if c.custom == nil || c.sources == nil {
		var err error
		if mapper, err = c.restMapper(cfg, opts.Discovery, mapper); err != nil {
			return err
		}
	}
	if c.custom == nil {
		client, err := c.buildCustomClient(cfg, opts.Discovery, mapper)
		if err != nil {
			return err
		}
		c.custom = client
	}
	if c.sources == nil {
		builder, err := newRESTSourceBuilder(cfg, mapper)
		if err != nil {
			return err
		}
		cache := newSourceCache(builder, opts.MaxSourceClients, opts.Logger)
		c.refreshers = append(c.refreshers, cache.forgetVersions)
		c.sources = cache
	}
	return nil
}

// metricsConfig is the configuration of every client built from
// opts.Config. The HTTP time-out frees the goroutine that a timed-out fetch
// leaves behind (the custom and external clients take no context), so it
// matches the fetch time-out. The one rate limiter makes opts.QPS the
// limit of the metrics APIs together, however many clients read them.
func metricsConfig(opts Options, fetchTimeout time.Duration) *rest.Config {
	cfg := rest.CopyConfig(opts.Config)
	cfg.Timeout = fetchTimeout
	if opts.QPS > 0 {
		cfg.QPS, cfg.Burst = opts.QPS, max(opts.Burst, 1)
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	return cfg
}

// restMapper returns mapper, or, when nil, a discovery-backed one that Run
// resets, shared by the default custom metrics client and the sources'.
func (c *RESTClient) restMapper(cfg *rest.Config, disc discovery.DiscoveryInterface, mapper meta.RESTMapper) (meta.RESTMapper, error) {
	if mapper != nil {
		return mapper, nil
	}
	if disc == nil {
		client, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("building the discovery client for custom metrics: %w", err)
		}
		disc = client
	}
	deferred := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	c.refreshers = append(c.refreshers, deferred.Reset)
	return deferred, nil
}

// buildCustomClient returns a custom metrics client that talks whichever
// version of the API the cluster serves, as found by discovery.
func (c *RESTClient) buildCustomClient(cfg *rest.Config, disc discovery.DiscoveryInterface, mapper meta.RESTMapper) (customclient.CustomMetricsClient, error) {
	if disc == nil {
		client, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("building the discovery client for custom metrics: %w", err)
		}
		disc = client
	}
	versions := customclient.NewAvailableAPIsGetter(disc)
	c.refreshers = append(c.refreshers, versions.Invalidate)
	return customclient.NewForConfig(cfg, mapper, versions), nil
}

// Run drops cached discovery results every refresh interval until ctx is
// done. It only matters when NewRESTClient built the custom metrics client;
// otherwise it just waits for ctx.
func (c *RESTClient) Run(ctx context.Context) {
	if len(c.refreshers) == 0 {
		<-ctx.Done()
		return
	}
	ticker := c.clock.NewTicker(c.refreshInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
			for _, refresh := range c.refreshers {
				refresh()
			}
		}
	}
}
