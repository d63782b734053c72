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

package webhook

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"
)

// Limits bound what one caller can hold of the webhook's server.
type Limits struct {
	// ReadTimeout bounds reading a request, headers and body.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from the end of its headers to the
	// end of the response: reading the body, deciding, answering.
	WriteTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers.
	MaxHeaderBytes int
	// MaxInFlight is how many requests are served at once; more are
	// answered 429 at once. Zero means no bound.
	MaxInFlight int
}

// DefaultLimits are the limits of the webhook as deployed. The API server
// is its only legitimate caller: it waits at most timeoutSeconds for an
// answer, 10 s in deploy/webhook.yaml and never more than 30 s, and sends
// the review in one piece over the cluster network.
func DefaultLimits() Limits {
	return Limits{
		// At most ~6 MiB arrive in milliseconds in a cluster; a request
		// still arriving after 10 s is one the API server, with the
		// deployed timeoutSeconds, has already given up on, or a client
		// holding the connection open on purpose.
		ReadTimeout: 10 * time.Second,
		// The longest the API server ever waits: past it no one reads
		// the answer.
		WriteTimeout: 30 * time.Second,
		// Longer than the 90 s after which the API server's transport
		// drops an idle connection itself, so that the caller is the one
		// that closes, never in a race with its next request.
		IdleTimeout: 120 * time.Second,
		// The API server sends a handful of short headers (a bearer
		// token, if configured, is the longest); net/http's default is
		// 1 MiB.
		MaxHeaderBytes: 64 << 10,
		// At the size limit a review allocates about three times its
		// body (the bytes read, the objects' raw copies, the objects
		// decoded), some 19 MiB: 16 at once stay well inside the 512 MiB
		// the deployment gives the container beside the controller's
		// caches. A review of a real HPA, a few KiB, is decided in well
		// under a millisecond, so 16 at once still answer tens of
		// thousands a second, and a burst past them costs a second's
		// delay (429 with Retry-After, which the API server retries),
		// not a failed write.
		MaxInFlight: 16,
	}
}

// NewServer returns the webhook's HTTP server: handler behind the
// in-flight bound, under limits, serving TLS with tlsConfig (nil: plain
// HTTP). Requests carry ctx's values, its logger among them, but not its
// cancellation: shutting down lets the reviews in flight finish.
func NewServer(ctx context.Context, handler http.Handler, tlsConfig *tls.Config, limits Limits) *http.Server {
	base := context.WithoutCancel(ctx)
	return &http.Server{
		Handler:        limitInFlight(handler, limits.MaxInFlight),
		TLSConfig:      tlsConfig,
		ReadTimeout:    limits.ReadTimeout,
		WriteTimeout:   limits.WriteTimeout,
		IdleTimeout:    limits.IdleTimeout,
		MaxHeaderBytes: limits.MaxHeaderBytes,
		BaseContext:    func(net.Listener) context.Context { return base },
	}
}
