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
	"fmt"
	"math"
	"time"

	"github.com/prometheus/common/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
)

// querySeries answers a metric of Prometheus mode: its query, evaluated by
// its Prometheus server at now, as series. An answer with no series is an
// empty list, as a production adapter returns it; a server that fails,
// hangs past the query time-out or cannot be reached is an error status.
func (p *Provider) querySeries(ctx context.Context, m *Metric, what string, now time.Time) ([]Series, error) {
	if p.prometheus == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("%s: %w", what, errNoPrometheus))
	}
	q, err := p.prometheus.Querier(m.Prometheus)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("%s: %w", what, err))
	}
	value, _, err := q.Query(ctx, m.Query, now)
	if err != nil {
		return nil, queryError(ctx, err, fmt.Sprintf("%s: query %q", what, m.Query))
	}
	series, err := toSeries(value)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s: query %q: %v", what, m.Query, err))
	}
	return series, nil
}

// toSeries reads an instant vector (one series per sample, labeled as the
// sample minus its metric name) or a scalar (one series without labels).
func toSeries(v model.Value) ([]Series, error) {
	switch v := v.(type) {
	case model.Vector:
		out := make([]Series, 0, len(v))
		for _, s := range v {
			q, err := toQuantity(float64(s.Value))
			if err != nil {
				return nil, fmt.Errorf("series %s: %w", s.Metric, err)
			}
			out = append(out, Series{Value: q, Labels: seriesLabels(s.Metric)})
		}
		return out, nil
	case *model.Scalar:
		q, err := toQuantity(float64(v.Value))
		if err != nil {
			return nil, err
		}
		return []Series{{Value: q}}, nil
	case nil:
		return nil, fmt.Errorf("no result")
	default:
		return nil, fmt.Errorf("the result is a %s; an external metric needs an instant vector or a scalar", v.Type())
	}
}

// seriesLabels are the labels of a sample without its metric name, which
// an external metric's selector never names.
func seriesLabels(m model.Metric) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if k != model.MetricNameLabel {
			out[string(k)] = string(v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// toQuantity turns a sample into milli-units, rounded to the nearest. A
// value beyond the int64 milli-unit range saturates at it; NaN and the
// infinities are refused, since no replica count can come from them.
func toQuantity(v float64) (resource.Quantity, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return resource.Quantity{}, fmt.Errorf("the value is %v", v)
	}
	milli := math.Round(v * 1000)
	var m int64
	switch {
	case milli >= math.MaxInt64:
		m = math.MaxInt64
	case milli <= math.MinInt64:
		m = math.MinInt64
	default:
		m = int64(milli)
	}
	return *resource.NewMilliQuantity(m, resource.DecimalSI), nil
}
