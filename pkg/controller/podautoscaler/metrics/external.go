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
	"time"

	"github.com/kube-hpa/kube-hpa/pkg/milli"
	"k8s.io/apimachinery/pkg/labels"
	externalapi "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
)

// GetExternalMetric implements Client on the external metrics API.
func (c *RESTClient) GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error) {
	list, err := withTimeout(ctx, c.fetchTimeout, func(ctx context.Context) (*externalapi.ExternalMetricValueList, error) {
		external, err := c.externalClient(ctx, apiGroup)
		if err != nil {
			return nil, err
		}
		return external.NamespacedMetrics(namespace).List(metricName, selector)
	})
	if err != nil {
		return nil, time.Time{}, fetchError(externalAPI, apiGroup, err)
	}
	if list == nil || len(list.Items) == 0 {
		return nil, time.Time{}, fmt.Errorf("%w from %s", ErrNoMetrics, externalAPI.named(apiGroup))
	}

	values := make([]int64, len(list.Items))
	oldest := list.Items[0].Timestamp.Time
	for i := range list.Items {
		values[i] = milli.Value(list.Items[i].Value)
		oldest = earlier(oldest, list.Items[i].Timestamp.Time)
	}
	return values, oldest, nil
}
