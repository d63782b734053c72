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
	"strings"
	"testing"
)

func TestParseMetricQuery(t *testing.T) {
	tests := []struct {
		name           string
		text           string
		wantQuery      string
		wantPrometheus string
		wantErr        string // part of the error, "" for none
	}{
		{name: "a query alone uses the default server", text: `query: sum(queue_depth)`, wantQuery: "sum(queue_depth)"},
		{
			name:      "a query with a server of its own",
			text:      `{"query": "sum(queue_depth{queue=\"orders\"})", "prometheus": "http://127.0.0.1:9090"}`,
			wantQuery: `sum(queue_depth{queue="orders"})`, wantPrometheus: "http://127.0.0.1:9090",
		},
		{name: "a query keeps the faults of the ConfigMap", text: "query: up\nfault: error", wantQuery: "up"},
		{name: "a query and a value at once", text: `{"query": "up", "value": "3"}`, wantErr: "either a query or values"},
		{name: "a query and series at once", text: `{"query": "up", "series": [{"value": 1}]}`, wantErr: "either a query or values"},
		{name: "a server without a query", text: `{"value": "3", "prometheus": "http://127.0.0.1:9090"}`, wantErr: "prometheus without a query"},
		{name: "a server that is no URL", text: `{"query": "up", "prometheus": "127.0.0.1:9090"}`, wantErr: "not an http(s) URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseMetric(tc.text)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if m.Query != tc.wantQuery || m.Prometheus != tc.wantPrometheus {
				t.Errorf("query %q prometheus %q, want %q %q", m.Query, m.Prometheus, tc.wantQuery, tc.wantPrometheus)
			}
			if len(m.Series) != 0 {
				t.Errorf("a query metric has series %+v from the ConfigMap", m.Series)
			}
		})
	}
}

func TestQueryIsOnlyForExternalKeys(t *testing.T) {
	c := ParseConfig(map[string]string{
		"external.queue_depth":                      "query: sum(queue_depth)",
		"custom.pods.rps":                           "query: sum(rps)",
		"custom.object.Deployment.web.queue_length": "query: sum(queue_length)",
		"fault.external":                            "query: up",
	})
	if m := c.External["queue_depth"]; m == nil || m.Invalid != nil || m.Query != "sum(queue_depth)" {
		t.Errorf("external.queue_depth = %+v, want a valid query", m)
	}
	for key, m := range map[string]*Metric{"custom.pods.rps": c.Pods["rps"], "custom.object": c.Objects[0].Spec, "fault.external": c.ExternalFault} {
		if m == nil || m.Invalid == nil || !strings.Contains(m.Invalid.Error(), "query") {
			t.Errorf("%s = %+v, want it invalid for its query", key, m)
		}
	}
}
