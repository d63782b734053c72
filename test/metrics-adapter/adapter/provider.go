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

package adapter

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/clock"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// Options are the dependencies of a Provider.
type Options struct {
	// Source gives the metrics; required.
	Source Source
	// Mapper resolves kinds and resources of custom metrics, so that a key
	// may name Deployment and match deployments.apps, and answers carry
	// the right kind. Without one, names are compared as strings.
	Mapper meta.RESTMapper
	// Lister finds the objects that a label selector picks, for custom
	// metric queries over many objects (pods/*/<metric>). Without one such
	// queries fail.
	Lister ObjectLister
	// Clock stamps the values and measures delays; the real clock when nil.
	Clock clock.Clock
	// Counter counts fetches; nothing is counted when nil.
	Counter *FetchCounter
	// FetchLog records when each external metric series was asked for;
	// nothing is recorded when nil.
	FetchLog *FetchLog
	// Prometheus answers the metrics that carry a query (Prometheus mode);
	// without it such metrics fail with an error that says why.
	Prometheus PrometheusClients
}

// Provider serves the external and custom metrics of a Source. It is safe
// for concurrent use: it keeps no state of its own besides the counter,
// the fetch log and the Prometheus clients.
type Provider struct {
	source  Source
	mapper  meta.RESTMapper
	lister  ObjectLister
	clock   clock.Clock
	counter *FetchCounter
	// fetchLog may be nil.
	fetchLog *FetchLog
	// prometheus may be nil.
	prometheus PrometheusClients
}

// Provider serves both metrics APIs of custom-metrics-apiserver.
var _ provider.MetricsProvider = (*Provider)(nil)

// New returns a Provider of opts.
func New(opts Options) (*Provider, error) {
	if opts.Source == nil {
		return nil, errors.New("adapter: Options.Source is required")
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Provider{
		source:     opts.Source,
		mapper:     opts.Mapper,
		lister:     opts.Lister,
		clock:      opts.Clock,
		counter:    opts.Counter,
		fetchLog:   opts.FetchLog,
		prometheus: opts.Prometheus,
	}, nil
}
