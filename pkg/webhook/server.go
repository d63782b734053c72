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
	"net/http"
	"time"

	"k8s.io/klog/v2"
)

// Limits bound what one caller can hold of the webhook's server, as far as
// a handler can bound it.
//
// The webhook is served by k8s.io/apiserver's SecureServingInfo.Serve,
// whose own http.Server, like kube-apiserver's and every aggregated API
// server's, reads a request's headers within 32 s, takes headers up to
// 1 MiB and closes a connection idle for 90 s. Those belong to the
// connection and are set before any handler runs, so they are not here.
// The hand-written server this replaced had 10 s, 64 KiB and 120 s: the
// header bound now matches the secure port's on the same network, and the
// idle close equals the 90 s after which the API server's transport
// (HTTP/1.1 to webhooks) drops an idle connection itself, as with an
// aggregated API server, so a review sent at that very instant can fail
// once under the webhook's failurePolicy instead of the caller always
// closing first.
type Limits struct {
	// ReadTimeout bounds reading a request's body, from the moment its
	// headers have been read.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from the end of its headers to the
	// end of the response: reading the body, deciding, answering.
	WriteTimeout time.Duration
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
		// At most ~6 MiB arrive in milliseconds in a cluster; a body
		// still arriving after 10 s is one the API server, with the
		// deployed timeoutSeconds, has already given up on, or a client
		// holding the connection open on purpose.
		ReadTimeout: 10 * time.Second,
		// The longest the API server ever waits: past it no one reads
		// the answer.
		WriteTimeout: 30 * time.Second,
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

// WithLimits returns handler behind the in-flight bound and the read and
// write deadlines of limits, set on each request's connection (HTTP/1.1)
// or stream (HTTP/2) as it starts. Requests log to ctx's logger; they are
// cancelled by their own connection only, so that shutting down lets the
// reviews in flight finish.
func WithLimits(ctx context.Context, handler http.Handler, limits Limits) http.Handler {
	logger := klog.FromContext(ctx)
	limited := limitInFlight(handler, limits.MaxInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		rc := http.NewResponseController(w)
		// A ResponseWriter without deadlines (a test's recorder) is served
		// without them: net/http's and x/net/http2's both have them.
		if limits.ReadTimeout > 0 {
			_ = rc.SetReadDeadline(now.Add(limits.ReadTimeout))
		}
		if limits.WriteTimeout > 0 {
			_ = rc.SetWriteDeadline(now.Add(limits.WriteTimeout))
		}
		limited.ServeHTTP(w, r.WithContext(klog.NewContext(r.Context(), logger)))
	})
}
