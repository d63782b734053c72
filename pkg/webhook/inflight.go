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
	"fmt"
	"net/http"

	"k8s.io/klog/v2"
)

// limitInFlight serves at most limit requests of next at once (no bound
// when limit is zero or less). One more is answered 429 at once rather
// than queued: a queue would hold its connection and memory while the API
// server's timeout runs out, whereas a 429 with Retry-After is retried by
// the API server's client after that delay.
func limitInFlight(next http.Handler, limit int) http.Handler {
	if limit <= 0 {
		return next
	}
	slots := make(chan struct{}, limit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			reason := fmt.Sprintf("%d admission reviews are already in flight; retry later", limit)
			klog.FromContext(r.Context()).V(2).Info("Refused an admission request", "remoteAddr", r.RemoteAddr, "status", http.StatusTooManyRequests, "reason", reason)
			w.Header().Set("Retry-After", "1")
			http.Error(w, reason, http.StatusTooManyRequests)
		}
	})
}
