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

	"k8s.io/apimachinery/pkg/runtime"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"
)

// metricsAPI is one of the two metrics APIs a source may serve.
type metricsAPI struct {
	// name is how messages call the API.
	name string
	// wire is the format a source of this API must answer with.
	wire string
}

var (
	customAPI   = metricsAPI{name: "custom metrics API", wire: "MetricValueList of custom.metrics.k8s.io/v1beta2 or v1beta1"}
	externalAPI = metricsAPI{name: "external metrics API", wire: "ExternalMetricValueList of external.metrics.k8s.io/v1beta1"}
)

// named is how messages call the API served by apiGroup: upstream's words
// for the default group, and the group itself for a source, so that a
// condition or event says which provider failed.
func (a metricsAPI) named(apiGroup string) string {
	if apiGroup == "" {
		return a.name
	}
	return fmt.Sprintf("%s of API group %q", a.name, apiGroup)
}

// fetchError wraps the error of a fetch from apiGroup. A body in another
// format gets the format the source owes, since that is what its provider
// must fix.
func fetchError(api metricsAPI, apiGroup string, err error) error {
	var wrong wrongWireFormat
	if apiGroup != "" && (errors.As(err, &wrong) || runtime.IsNotRegisteredError(err)) {
		return fmt.Errorf("unable to fetch metrics from %s: the provider must answer with a %s: %w", api.named(apiGroup), api.wire, err)
	}
	return fmt.Errorf("unable to fetch metrics from %s: %w", api.named(apiGroup), err)
}

// errNoSources is the error of a routed fetch by a client built without
// the means to reach other groups (tests that pass their own clients).
var errNoSources = errors.New("this metrics client has no clients for metric sources")

// customClient returns the client of the custom metrics API of apiGroup:
// the default one for "".
func (c *RESTClient) customClient(ctx context.Context, apiGroup string) (customclient.CustomMetricsClient, error) {
	if apiGroup == "" {
		return c.custom, nil
	}
	if c.sources == nil {
		return nil, errNoSources
	}
	return c.sources.CustomClientForGroup(ctx, apiGroup)
}

// externalClient is customClient for the external metrics API.
func (c *RESTClient) externalClient(ctx context.Context, apiGroup string) (externalclient.ExternalMetricsClient, error) {
	if apiGroup == "" {
		return c.external, nil
	}
	if c.sources == nil {
		return nil, errNoSources
	}
	return c.sources.ExternalClientForGroup(ctx, apiGroup)
}
