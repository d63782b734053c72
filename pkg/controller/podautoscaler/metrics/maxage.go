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
	"time"
)

// maxAgeKey is the context key of WithMaxAge.
type maxAgeKey struct{}

// WithMaxAge returns a context under which SharedExternal answers only
// from a fetch at most d old, even when its window is longer. An HPA that
// is reconciled more often than the window (KEP-6003's syncPeriodSeconds)
// asks for data as fresh as its own period; the HPAs of longer periods
// asking for the same metric then share its fresher fetches, so each
// distinct metric is fetched once per the shortest period among the HPAs
// that ask for it, never more. A d of zero or less asks for a fetch of its
// own.
func WithMaxAge(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, maxAgeKey{}, d)
}

// maxAge is the age an answer may have for the ask of ctx: window, or less
// when ctx asks for less.
func maxAge(ctx context.Context, window time.Duration) time.Duration {
	if d, ok := ctx.Value(maxAgeKey{}).(time.Duration); ok && d < window {
		return d
	}
	return window
}
