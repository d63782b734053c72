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
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Prefixes and names of the ConfigMap's data keys.
const (
	externalPrefix     = "external."      // external.<metric>
	customObjectPrefix = "custom.object." // custom.object.<kind>.<name>.<metric>
	customPodsPrefix   = "custom.pods."   // custom.pods.<metric>
	externalFaultKey   = "fault.external" // a fault for every external metric
	customFaultKey     = "fault.custom"   // a fault for every custom metric
)

// Config is the parsed data of the ConfigMap: every metric the adapter
// knows. It is never changed after ParseConfig returns it, so providers
// share it without locks.
type Config struct {
	// External holds the external metrics by name.
	External map[string]*Metric
	// Objects are the custom metrics of single objects, in key order.
	Objects []ObjectMetric
	// Pods holds the custom metrics of pods by metric name.
	Pods map[string]*Metric
	// ExternalFault and CustomFault, when not nil, apply to every metric of
	// their API, known or not: the whole API is out.
	ExternalFault *Metric
	CustomFault   *Metric
	// Problems lists the keys that were ignored or could not be read, for
	// the adapter's log.
	Problems []error
}

// ObjectMetric is the custom metric of one object, from a
// custom.object.<kind>.<name>.<metric> key.
type ObjectMetric struct {
	// Kind is as written in the key: a Kind (Deployment) or a singular or
	// plural resource name (deployment, deployments), in any case.
	Kind       string
	Name       string
	MetricName string
	Spec       *Metric
}

// ParseConfig reads the data of the ConfigMap. A key it cannot read is
// kept as an invalid metric when the key says which metric it is (so that a
// fetch of that metric explains the mistake), and is listed in Problems.
func ParseConfig(data map[string]string) *Config {
	c := &Config{External: map[string]*Metric{}, Pods: map[string]*Metric{}}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		c.add(key, data[key])
	}
	return c
}

func (c *Config) add(key, text string) {
	switch {
	case key == externalFaultKey:
		c.ExternalFault = c.read(key, text, checkFaultOnly)
	case key == customFaultKey:
		c.CustomFault = c.read(key, text, checkFaultOnly)
	case strings.HasPrefix(key, externalPrefix) && len(key) > len(externalPrefix):
		c.External[strings.TrimPrefix(key, externalPrefix)] = c.read(key, text, checkExternal)
	case strings.HasPrefix(key, customPodsPrefix) && len(key) > len(customPodsPrefix):
		c.Pods[strings.TrimPrefix(key, customPodsPrefix)] = c.read(key, text, checkSingleValue)
	case strings.HasPrefix(key, customObjectPrefix):
		kind, name, metric, ok := splitObjectKey(strings.TrimPrefix(key, customObjectPrefix))
		if !ok {
			c.Problems = append(c.Problems, fmt.Errorf("key %q: want custom.object.<kind>.<name>.<metric>", key))
			return
		}
		c.Objects = append(c.Objects, ObjectMetric{
			Kind: kind, Name: name, MetricName: metric,
			Spec: c.read(key, text, checkObject),
		})
	default:
		c.Problems = append(c.Problems, fmt.Errorf("key %q is none of external.<metric>, "+
			"custom.object.<kind>.<name>.<metric>, custom.pods.<metric>, %s, %s: ignored",
			key, externalFaultKey, customFaultKey))
	}
}

// read parses one value and checks it against what its key allows; a
// mistake becomes an invalid metric.
func (c *Config) read(key, text string, check func(*Metric) error) *Metric {
	m, err := parseMetric(text)
	if err == nil {
		err = check(m)
	}
	if err != nil {
		err = fmt.Errorf("key %q: %w", key, err)
		c.Problems = append(c.Problems, err)
		return &Metric{Invalid: err}
	}
	return m
}

// splitObjectKey splits <kind>.<name>.<metric>. Object names may hold dots;
// kinds and metric names may not.
func splitObjectKey(rest string) (kind, name, metric string, ok bool) {
	first := strings.Index(rest, ".")
	last := strings.LastIndex(rest, ".")
	if first <= 0 || last <= first+1 || last == len(rest)-1 {
		return "", "", "", false
	}
	return rest[:first], rest[first+1 : last], rest[last+1:], true
}

func checkExternal(m *Metric) error {
	if len(m.Pods) > 0 {
		return errors.New("pods is only for custom.pods keys")
	}
	return nil
}

func checkSingleValue(m *Metric) error {
	if m.Query != "" {
		return errors.New("query is only for external metrics")
	}
	if len(m.Series) > 1 {
		return errors.New("a custom metric has one value, not a list of series")
	}
	if len(m.Series) == 1 && len(m.Series[0].Labels) > 0 {
		return errors.New("labels are only for external metrics")
	}
	return nil
}

func checkObject(m *Metric) error {
	if len(m.Pods) > 0 {
		return errors.New("pods is only for custom.pods keys")
	}
	return checkSingleValue(m)
}

func checkFaultOnly(m *Metric) error {
	if len(m.Series) > 0 || len(m.Pods) > 0 || m.Query != "" {
		return errors.New("a fault key takes a fault (and errorCode, delay), not values or a query")
	}
	return nil
}
