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
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Querier runs an instant PromQL query. client_golang's v1.API is one; tests
// give a fake.
type Querier interface {
	Query(ctx context.Context, query string, ts time.Time, opts ...promv1.Option) (model.Value, promv1.Warnings, error)
}

// PrometheusClients gives the Querier of the Prometheus server at url; ""
// stands for the adapter's default server (--prometheus-url).
type PrometheusClients interface {
	Querier(url string) (Querier, error)
}

// PrometheusPoolOptions configure a PrometheusPool.
type PrometheusPoolOptions struct {
	// DefaultURL answers the metrics whose key names no server; empty
	// means such metrics fail with an error that says so.
	DefaultURL string
	// Timeout bounds one query, as a production adapter bounds its
	// queries: a Prometheus that hangs then answers a time-out status
	// rather than holding the request until the HPA controller gives up.
	// 0 leaves only the request's own deadline.
	Timeout time.Duration
	// RoundTripper carries the requests; http.DefaultTransport when nil.
	RoundTripper http.RoundTripper
}

// PrometheusPool keeps one client per Prometheus server. It is safe for
// concurrent use.
type PrometheusPool struct {
	opts PrometheusPoolOptions

	mu      sync.Mutex
	clients map[string]Querier
}

var _ PrometheusClients = (*PrometheusPool)(nil)

// NewPrometheusPool returns a pool with no client yet; each is built on
// first use.
func NewPrometheusPool(opts PrometheusPoolOptions) *PrometheusPool {
	if opts.RoundTripper == nil {
		opts.RoundTripper = http.DefaultTransport
	}
	return &PrometheusPool{opts: opts, clients: map[string]Querier{}}
}

// errNoPrometheus is the error of a query metric when no server is known.
var errNoPrometheus = errors.New("the metric has a query but names no Prometheus server, and the adapter runs without --prometheus-url")

// Querier returns the client of url, or of the default server for "".
func (p *PrometheusPool) Querier(url string) (Querier, error) {
	if url == "" {
		url = p.opts.DefaultURL
	}
	if url == "" {
		return nil, errNoPrometheus
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if q, ok := p.clients[url]; ok {
		return q, nil
	}
	client, err := promapi.NewClient(promapi.Config{Address: url, RoundTripper: p.opts.RoundTripper})
	if err != nil {
		return nil, fmt.Errorf("a client of Prometheus at %s: %w", url, err)
	}
	q := timeoutQuerier{api: promv1.NewAPI(client), timeout: p.opts.Timeout}
	p.clients[url] = q
	return q, nil
}

// timeoutQuerier bounds each query by its own deadline.
type timeoutQuerier struct {
	api     promv1.API
	timeout time.Duration
}

func (q timeoutQuerier) Query(ctx context.Context, query string, ts time.Time, opts ...promv1.Option) (model.Value, promv1.Warnings, error) {
	if q.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, q.timeout)
		defer cancel()
		// Prometheus ends its own evaluation at the same moment.
		opts = append(opts, promv1.WithTimeout(q.timeout))
	}
	return q.api.Query(ctx, query, ts, opts...)
}
