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
	"errors"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// fetchFailure marks an error of a metrics API call, so that whoever reads
// an error the calculator built around it can tell "the metric could not be
// fetched" from "the value came but could not be used". It adds no text.
type fetchFailure struct{ err error }

func (e fetchFailure) Error() string { return e.err.Error() }
func (e fetchFailure) Unwrap() error { return e.err }

// IsFetchFailure reports whether err, however wrapped, is the error of a
// call of a client wrapped by MarkFetchFailures.
func IsFetchFailure(err error) bool {
	var f fetchFailure
	return errors.As(err, &f)
}

// MarkFetchFailures wraps c so that every error it returns is marked for
// IsFetchFailure.
func MarkFetchFailures(c Client) Client { return markFetchFailures{c: c} }

type markFetchFailures struct{ c Client }

func mark(err error) error {
	if err == nil {
		return nil
	}
	return fetchFailure{err: err}
}

func (m markFetchFailures) GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector labels.Selector, container string) (PodMetricsInfo, time.Time, error) {
	info, t, err := m.c.GetResourceMetric(ctx, resource, namespace, selector, container)
	return info, t, mark(err)
}

func (m markFetchFailures) GetRawMetric(ctx context.Context, metricName, namespace string, selector, metricSelector labels.Selector, apiGroup string) (PodMetricsInfo, time.Time, error) {
	info, t, err := m.c.GetRawMetric(ctx, metricName, namespace, selector, metricSelector, apiGroup)
	return info, t, mark(err)
}

func (m markFetchFailures) GetObjectMetric(ctx context.Context, metricName, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector, apiGroup string) (int64, time.Time, error) {
	v, t, err := m.c.GetObjectMetric(ctx, metricName, namespace, objectRef, metricSelector, apiGroup)
	return v, t, mark(err)
}

func (m markFetchFailures) GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error) {
	v, t, err := m.c.GetExternalMetric(ctx, metricName, namespace, selector, apiGroup)
	return v, t, mark(err)
}
