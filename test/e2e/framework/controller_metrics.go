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

package framework

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// LeaderGauge reads, from the /metrics of the replica leading now, the
// value of the series of metric whose labels include every pair of labels.
func (c *Controllers) LeaderGauge(ctx context.Context, metric string, labels map[string]string) (float64, error) {
	page, err := c.LeaderMetrics(ctx)
	if err != nil {
		return 0, err
	}
	return gaugeValue(page, metric, labels)
}

// LeaderMetrics is the /metrics page of the replica leading now.
func (c *Controllers) LeaderMetrics(ctx context.Context) (string, error) {
	leaders := c.Leaders(ctx)
	if len(leaders) != 1 {
		return "", fmt.Errorf("%d replicas lead, want one", len(leaders))
	}
	code, page, err := c.get(ctx, leaders[0], "/metrics")
	if err != nil {
		return "", err
	}
	if code != http.StatusOK {
		return "", fmt.Errorf("/metrics of replica %d answered %d", leaders[0], code)
	}
	return page, nil
}

// HasSeries reports whether a Prometheus text page has a series of metric
// that carries every label named (whatever their values).
func HasSeries(page, metric string, labels ...string) bool {
	for _, line := range strings.Split(page, "\n") {
		if line != metric && !strings.HasPrefix(line, metric+" ") && !strings.HasPrefix(line, metric+"{") {
			continue
		}
		all := true
		for _, l := range labels {
			if !strings.Contains(line, l+`="`) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// gaugeValue finds one series in a Prometheus text page.
func gaugeValue(page, metric string, labels map[string]string) (float64, error) {
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, metric+"{") {
			continue
		}
		matches := true
		for k, v := range labels {
			if !strings.Contains(line, k+`="`+v+`"`) {
				matches = false
				break
			}
		}
		if !matches {
			continue
		}
		fields := strings.Fields(line)
		return strconv.ParseFloat(fields[len(fields)-1], 64)
	}
	return 0, fmt.Errorf("no series %s%v", metric, labels)
}
