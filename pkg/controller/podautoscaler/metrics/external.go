package metrics

import (
	"context"
	"fmt"
	"time"

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
		values[i] = MilliValue(list.Items[i].Value)
		oldest = earlier(oldest, list.Items[i].Timestamp.Time)
	}
	return values, oldest, nil
}
