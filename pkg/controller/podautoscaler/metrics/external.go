package metrics

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	externalapi "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
)

// GetExternalMetric implements Client on the external metrics API.
func (c *RESTClient) GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector) ([]int64, time.Time, error) {
	list, err := withTimeout(ctx, c.fetchTimeout, func(context.Context) (*externalapi.ExternalMetricValueList, error) {
		return c.external.NamespacedMetrics(namespace).List(metricName, selector)
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("unable to fetch metrics from external metrics API: %w", err)
	}
	if list == nil || len(list.Items) == 0 {
		return nil, time.Time{}, fmt.Errorf("%w from external metrics API", ErrNoMetrics)
	}

	values := make([]int64, len(list.Items))
	oldest := list.Items[0].Timestamp.Time
	for i := range list.Items {
		values[i] = MilliValue(list.Items[i].Value)
		oldest = earlier(oldest, list.Items[i].Timestamp.Time)
	}
	return values, oldest, nil
}
