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

package fallback

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
)

// providerFailure marks an error of the external metrics provider itself:
// an error status, an empty answer, a time-out, the API unavailable. Only
// such an error counts toward the fallback; a metric the provider answered
// but that cannot be used (no pods selected, say) stays invalid as
// upstream. It adds no text, so messages read as upstream's.
type providerFailure struct{ err error }

func (e providerFailure) Error() string { return e.err.Error() }
func (e providerFailure) Unwrap() error { return e.err }

// IsProviderFailure reports whether err, however wrapped, came from the
// external metrics provider (see MarkProviderFailures).
func IsProviderFailure(err error) bool {
	var pf providerFailure
	return errors.As(err, &pf)
}

// MarkProviderFailures wraps the metrics client that the calculator uses so
// that every error of an External metric fetch is marked as the
// provider's, whatever the calculator adds around it: the mark is set where
// the provider is asked, the only place that knows.
func MarkProviderFailures(c metrics.Client) metrics.Client {
	return markProviderFailures{Client: c}
}

type markProviderFailures struct {
	metrics.Client
}

func (m markProviderFailures) GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error) {
	values, timestamp, err := m.Client.GetExternalMetric(ctx, metricName, namespace, selector, apiGroup)
	if err != nil {
		err = providerFailure{err: err}
	}
	return values, timestamp, err
}
