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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// Metric is what one data key of the ConfigMap says about one metric.
type Metric struct {
	// Series are the values of the metric. An external metric has one per
	// label set; a custom metric has at most one, without labels.
	Series []Series
	// Pods overrides the value of single pods, by name (custom.pods keys).
	Pods map[string]resource.Quantity
	// Fault, when set, is played instead of answering the values.
	Fault Fault
	// ErrorCode is the HTTP status of FaultError; 0 means 500.
	ErrorCode int
	// Delay holds every answer back this long, or until the request ends.
	Delay time.Duration
	// Query, when set, is a PromQL expression whose answer is the metric's
	// series (Prometheus mode), instead of values from the ConfigMap.
	Query string
	// Prometheus is the URL of the Prometheus server that answers Query;
	// empty means the adapter's --prometheus-url. A per-metric server lets
	// a test stop its own Prometheus without failing anyone else's metrics.
	Prometheus string
	// Invalid says why the key could not be read. A fetch of the metric
	// then answers an internal error that quotes it, so a typo in the
	// ConfigMap shows where the test looks.
	Invalid error
}

// Series is one value of a metric and the labels that identify it.
type Series struct {
	Value  resource.Quantity
	Labels map[string]string
}

// metricDoc is the object form of a ConfigMap value, in YAML or JSON.
type metricDoc struct {
	Value      *resource.Quantity           `json:"value,omitempty"`
	Labels     map[string]string            `json:"labels,omitempty"`
	Series     []seriesDoc                  `json:"series,omitempty"`
	Pods       map[string]resource.Quantity `json:"pods,omitempty"`
	Fault      Fault                        `json:"fault,omitempty"`
	ErrorCode  int                          `json:"errorCode,omitempty"`
	Delay      string                       `json:"delay,omitempty"`
	Query      string                       `json:"query,omitempty"`
	Prometheus string                       `json:"prometheus,omitempty"`
}

type seriesDoc struct {
	Value  *resource.Quantity `json:"value"`
	Labels map[string]string  `json:"labels,omitempty"`
}

// parseMetric reads one ConfigMap value. Besides the object form it takes
// two shorthands: a bare quantity ("30") is one series without labels, a
// bare fault name ("error", "empty", "hang") is that fault, and a list is
// the series.
func parseMetric(text string) (*Metric, error) {
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("not YAML or JSON: %w", err)
	}
	js = bytes.TrimSpace(js)
	var doc metricDoc
	switch {
	case len(js) == 0 || string(js) == "null":
		return nil, errors.New("no value: give a quantity, a fault, a list of series or an object")
	case js[0] == '{':
		if err := decodeStrict(js, &doc); err != nil {
			return nil, err
		}
	case js[0] == '[':
		if err := decodeStrict(js, &doc.Series); err != nil {
			return nil, err
		}
	default:
		if err := parseScalar(js, &doc); err != nil {
			return nil, err
		}
	}
	return doc.metric()
}

// parseScalar reads the shorthands that are a single value.
func parseScalar(js []byte, doc *metricDoc) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber() // keep "1.50" as written
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	var text string
	switch v := v.(type) {
	case string:
		text = v
	case json.Number:
		text = v.String()
	default:
		return fmt.Errorf("unexpected value %s", js)
	}
	if f := Fault(text); f != NoFault && f.valid() {
		doc.Fault = f
		return nil
	}
	q, err := resource.ParseQuantity(text)
	if err != nil {
		return fmt.Errorf("%q is neither a quantity nor a fault (%s)", text, faultNames)
	}
	doc.Value = &q
	return nil
}

func decodeStrict(js []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

// metric checks doc and turns it into a Metric.
func (doc *metricDoc) metric() (*Metric, error) {
	m := &Metric{Pods: doc.Pods, Fault: doc.Fault, ErrorCode: doc.ErrorCode, Query: doc.Query, Prometheus: doc.Prometheus}
	if !doc.Fault.valid() {
		return nil, fmt.Errorf("unknown fault %q: want %s", doc.Fault, faultNames)
	}
	if doc.ErrorCode != 0 && (doc.ErrorCode < http.StatusBadRequest || doc.ErrorCode > 599) {
		return nil, fmt.Errorf("errorCode %d is not an error status (400-599)", doc.ErrorCode)
	}
	if doc.Delay != "" {
		d, err := time.ParseDuration(doc.Delay)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("delay %q is not a non-negative duration like 2s", doc.Delay)
		}
		m.Delay = d
	}
	if err := doc.checkQuery(); err != nil {
		return nil, err
	}
	switch {
	case doc.Value != nil && len(doc.Series) > 0:
		return nil, errors.New("give either value (and labels) or series, not both")
	case doc.Value == nil && len(doc.Labels) > 0:
		return nil, errors.New("labels without a value: put them in a series")
	case doc.Value != nil:
		m.Series = []Series{{Value: *doc.Value, Labels: doc.Labels}}
	}
	for i, s := range doc.Series {
		if s.Value == nil {
			return nil, fmt.Errorf("series[%d] has no value", i)
		}
		m.Series = append(m.Series, Series{Value: *s.Value, Labels: s.Labels})
	}
	return m, nil
}

// checkQuery checks the Prometheus fields: a query replaces the values, and
// a server is only for a query.
func (doc *metricDoc) checkQuery() error {
	switch {
	case doc.Query == "" && doc.Prometheus != "":
		return errors.New("prometheus without a query: give the PromQL query it answers")
	case doc.Query != "" && (doc.Value != nil || len(doc.Series) > 0 || len(doc.Labels) > 0):
		return errors.New("give either a query or values (value, labels, series), not both")
	case doc.Prometheus != "":
		u, err := url.Parse(doc.Prometheus)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("prometheus %q is not an http(s) URL like http://127.0.0.1:9090", doc.Prometheus)
		}
	}
	return nil
}
