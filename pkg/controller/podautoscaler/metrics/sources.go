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
	"fmt"
	"slices"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	customapi "k8s.io/metrics/pkg/apis/custom_metrics"
	externalapi "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	customscheme "k8s.io/metrics/pkg/client/custom_metrics/scheme"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"
	"k8s.io/utils/lru"
)

// DefaultMaxSourceClients is how many API groups' clients SourceClients
// keeps: KEP-6382's bound, so that HPAs naming many groups cannot grow the
// controller without limit.
const DefaultMaxSourceClients = 20

// SourceClients gives the clients of metrics APIs served under an API group
// other than the default ones (KEP-6382). The wire format is the default
// API's; only the group in the URL differs.
type SourceClients interface {
	// CustomClientForGroup returns a client that talks the custom metrics
	// API (MetricValueList) under apiGroup.
	CustomClientForGroup(ctx context.Context, apiGroup string) (customclient.CustomMetricsClient, error)
	// ExternalClientForGroup returns a client that talks the external
	// metrics API (ExternalMetricValueList) under apiGroup.
	ExternalClientForGroup(ctx context.Context, apiGroup string) (externalclient.ExternalMetricsClient, error)
}

// customVersions are the custom metrics versions a source may serve, most
// preferred first: the ones the client's decoder knows.
var customVersions = []string{customapi.SchemeGroupVersion.Group + "/v1beta2", customapi.SchemeGroupVersion.Group + "/v1beta1"}

// groupSource is what is kept of one API group: its external client, built
// on first use, and its custom client for the version discovery found,
// forgotten on refresh.
type groupSource struct {
	group    string
	external externalclient.ExternalMetricsClient
	custom   customclient.CustomMetricsClient
	// customFound is the discovery generation (sourceCache.discovery) in
	// which custom was found; a later one asks again.
	customFound int
}

// sourceBuilder builds the clients of one group. Split from the cache so
// that the cache's bound and eviction are tested without a server.
type sourceBuilder interface {
	external(group string) (externalclient.ExternalMetricsClient, error)
	custom(ctx context.Context, group string) (customclient.CustomMetricsClient, error)
}

// sourceCache is the SourceClients of the controller: a least recently
// used cache of groupSources, bounded, with a warning when a group is
// evicted (the HPAs that name it still work: its clients are built again,
// discovery included, which is the cost the warning is about).
type sourceCache struct {
	build sourceBuilder
	max   int

	// mu makes a lookup and the build that follows one step; the LRU
	// (k8s.io/utils/lru) keeps the recency and the bound.
	mu     sync.Mutex
	groups *lru.Cache // group name: *groupSource
	// discovery counts the refreshes (forgetVersions): a custom client
	// found in an earlier one is discovered again.
	discovery int
}

var _ SourceClients = &sourceCache{}

func newSourceCache(build sourceBuilder, maxGroups int, log logr.Logger) *sourceCache {
	if maxGroups <= 0 {
		maxGroups = DefaultMaxSourceClients
	}
	evicted := func(group lru.Key, _ any) {
		log.Info("Evicted the metrics clients of an API group: metric sources name more groups than the cache holds, so clients and discovery are rebuilt as the groups are used",
			"apiGroup", group, "limit", maxGroups)
	}
	return &sourceCache{build: build, max: maxGroups, groups: lru.NewWithEvictionFunc(maxGroups, evicted)}
}

// entry returns the group's entry, making it the most recently used,
// creating it (and evicting the least recently used) when absent. The
// caller holds mu.
func (c *sourceCache) entry(group string) *groupSource {
	if v, ok := c.groups.Get(group); ok {
		return v.(*groupSource)
	}
	src := &groupSource{group: group}
	c.groups.Add(group, src)
	return src
}

// ExternalClientForGroup implements SourceClients.
func (c *sourceCache) ExternalClientForGroup(_ context.Context, group string) (externalclient.ExternalMetricsClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	src := c.entry(group)
	if src.external == nil {
		client, err := c.build.external(group)
		if err != nil {
			return nil, err
		}
		src.external = client
	}
	return src.external, nil
}

// CustomClientForGroup implements SourceClients. Discovery runs outside the
// lock, so that a slow group does not hold up the others; two callers that
// find the group undiscovered both ask, and the last answer is kept.
func (c *sourceCache) CustomClientForGroup(ctx context.Context, group string) (customclient.CustomMetricsClient, error) {
	c.mu.Lock()
	src := c.entry(group)
	client, asked := src.custom, c.discovery
	if src.customFound != asked {
		client = nil
	}
	c.mu.Unlock()
	if client != nil {
		return client, nil
	}
	client, err := c.build.custom(ctx, group)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if v, ok := c.groups.Get(group); ok {
		v.(*groupSource).custom, v.(*groupSource).customFound = client, asked
	}
	c.mu.Unlock()
	return client, nil
}

// forgetVersions drops what discovery said about every group, so that a
// provider that is upgraded to another version is followed.
func (c *sourceCache) forgetVersions() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.discovery++
}

// restSourceBuilder builds source clients from a rest.Config.
type restSourceBuilder struct {
	cfg    *rest.Config
	mapper meta.RESTMapper
	// discovery reads /apis/<group>.
	discovery rest.Interface
}

func newRESTSourceBuilder(cfg *rest.Config, mapper meta.RESTMapper) (*restSourceBuilder, error) {
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the discovery client for metric sources: %w", err)
	}
	return &restSourceBuilder{cfg: cfg, mapper: mapper, discovery: disc.RESTClient()}, nil
}

// external builds an external metrics client for group. The external
// metrics API has one version, so there is nothing to discover.
func (b *restSourceBuilder) external(group string) (externalclient.ExternalMetricsClient, error) {
	gv := schema.GroupVersion{Group: group, Version: externalapi.SchemeGroupVersion.Version}
	// strictExternalClient reads the body itself, as JSON, whatever
	// content type the base configuration asks the metrics APIs for.
	client, err := b.restClient(gv, externalapi.SchemeGroupVersion, scheme.Codecs.WithoutConversion(), runtime.ContentTypeJSON)
	if err != nil {
		return nil, fmt.Errorf("building the external metrics client of API group %q: %w", group, err)
	}
	return strictExternalClient{client: client}, nil
}

// custom discovers the custom metrics version group serves and builds a
// client for it. The URL names group; the version the client converts
// with names custom.metrics.k8s.io, since that is the group of the wire
// format the provider must answer with.
func (b *restSourceBuilder) custom(ctx context.Context, group string) (customclient.CustomMetricsClient, error) {
	version, err := b.customVersion(ctx, group)
	if err != nil {
		return nil, err
	}
	wire := schema.GroupVersion{Group: customapi.SchemeGroupVersion.Group, Version: version}
	client, err := b.restClient(schema.GroupVersion{Group: group, Version: version}, wire, customscheme.Codecs.WithoutConversion(), "")
	if err != nil {
		return nil, fmt.Errorf("building the custom metrics client of API group %q: %w", group, err)
	}
	return customclient.NewForVersion(client, b.mapper, wire), nil
}

// customVersion asks the API server for group and picks its preferred
// version if it is one the custom metrics decoder knows, or else the first
// known one it serves.
func (b *restSourceBuilder) customVersion(ctx context.Context, group string) (string, error) {
	var apiGroup metav1.APIGroup
	if err := b.discovery.Get().AbsPath("/apis", group).Do(ctx).Into(&apiGroup); err != nil {
		return "", fmt.Errorf("discovering API group %q: %w", group, err)
	}
	return chooseCustomVersion(&apiGroup)
}

// chooseCustomVersion picks the version of a custom metrics source from
// its discovery document.
func chooseCustomVersion(g *metav1.APIGroup) (string, error) {
	known := func(version string) bool {
		return slices.Contains(customVersions, customapi.SchemeGroupVersion.Group+"/"+version)
	}
	if known(g.PreferredVersion.Version) {
		return g.PreferredVersion.Version, nil
	}
	var served []string
	for _, v := range g.Versions {
		if known(v.Version) {
			return v.Version, nil
		}
		served = append(served, v.Version)
	}
	return "", fmt.Errorf("API group %q serves no custom metrics version (v1beta2 or v1beta1), only %v", g.Name, served)
}

// restClient returns a client whose requests go to the URL of urlGV while
// it encodes parameters and decodes answers as wireGV, the default API's
// version: a source serves another group's URL with the default API's
// format, which a client made by rest.RESTClientFor (one group-version for
// both) cannot do. A contentType, when given, replaces the base
// configuration's, for both requests and answers.
func (b *restSourceBuilder) restClient(urlGV, wireGV schema.GroupVersion, serializer runtime.NegotiatedSerializer, contentType string) (*rest.RESTClient, error) {
	cfg := rest.CopyConfig(b.cfg)
	cfg.APIPath = "/apis"
	cfg.GroupVersion = &urlGV
	cfg.NegotiatedSerializer = serializer
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	if contentType != "" {
		cfg.ContentType, cfg.AcceptContentTypes = contentType, contentType
	}
	baseURL, versionedPath, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	limiter := cfg.RateLimiter
	if limiter == nil {
		qps, burst := cfg.QPS, cfg.Burst
		if qps == 0 {
			qps = rest.DefaultQPS
		}
		if burst == 0 {
			burst = rest.DefaultBurst
		}
		if qps > 0 {
			limiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
		}
	}
	content := rest.ClientContentConfig{
		AcceptContentTypes: cfg.AcceptContentTypes,
		ContentType:        cfg.ContentType,
		GroupVersion:       wireGV,
		Negotiator:         runtime.NewClientNegotiator(serializer, wireGV),
	}
	return rest.NewRESTClient(baseURL, versionedPath, content, limiter, httpClient)
}
