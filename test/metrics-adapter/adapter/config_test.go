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
	"time"
)

func TestParseMetric(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		wantValue string // of the first series, "" for none
		wantFault Fault
		wantDelay time.Duration
		wantCode  int
		wantErr   string // part of the error, "" for none
	}{
		{name: "a quoted quantity", text: `"30"`, wantValue: "30"},
		{name: "a bare number keeps its digits", text: `1.50`, wantValue: "1500m"},
		{name: "a quantity with a suffix", text: `250m`, wantValue: "250m"},
		{name: "a bare fault", text: `hang`, wantFault: FaultHang},
		{name: "a YAML object", text: "value: 12\nfault: error\nerrorCode: 503\ndelay: 2s", wantValue: "12", wantFault: FaultError, wantCode: 503, wantDelay: 2 * time.Second},
		{name: "a JSON object", text: `{"value": "3", "fault": "empty"}`, wantValue: "3", wantFault: FaultEmpty},
		{name: "a fault without values", text: `{"fault": "error"}`, wantFault: FaultError},
		{name: "nothing", text: ``, wantErr: "no value"},
		{name: "neither a quantity nor a fault", text: `lots`, wantErr: `"lots" is neither a quantity nor a fault`},
		{name: "an unknown fault", text: `{"fault": "crash"}`, wantErr: `unknown fault "crash"`},
		{name: "an unknown field", text: `{"vaule": "3"}`, wantErr: `unknown field "vaule"`},
		{name: "a status that is no error", text: `{"fault": "error", "errorCode": 200}`, wantErr: "not an error status"},
		{name: "a bad delay", text: `{"value": 1, "delay": "soon"}`, wantErr: "delay"},
		{name: "value and series at once", text: `{"value": 1, "series": [{"value": 2}]}`, wantErr: "not both"},
		{name: "labels without a value", text: `{"labels": {"a": "b"}}`, wantErr: "labels without a value"},
		{name: "a series without a value", text: `[{"labels": {"a": "b"}}]`, wantErr: "series[0] has no value"},
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
			gotValue := ""
			if len(m.Series) > 0 {
				gotValue = m.Series[0].Value.String()
			}
			if gotValue != tc.wantValue {
				t.Errorf("value %q, want %q", gotValue, tc.wantValue)
			}
			if m.Fault != tc.wantFault || m.Delay != tc.wantDelay || m.ErrorCode != tc.wantCode {
				t.Errorf("fault %q delay %v errorCode %d, want %q %v %d", m.Fault, m.Delay, m.ErrorCode, tc.wantFault, tc.wantDelay, tc.wantCode)
			}
		})
	}
}

func TestParseConfigKeys(t *testing.T) {
	c := ParseConfig(map[string]string{
		"external.queue_depth":                         "30",
		"custom.object.Deployment.web.queue_length":    "1",
		"custom.object.deployment.web.v2.queue_length": "2",
		"custom.pods.rps":                              "3",
		"fault.external":                               "error",
		"fault.custom":                                 `{"fault": "hang"}`,
		"custom.object.deployment.queue_length":        "4", // no name
		"external.bad":                                 `{"pods": {"a": "1"}}`,
		"custom.pods.two":                              `[{"value": 1}, {"value": 2}]`,
		"fault.external.extra":                         "error",
		"README":                                       "not a metric",
	})
	if got := c.External["queue_depth"]; got == nil || got.Series[0].Value.String() != "30" {
		t.Errorf("external.queue_depth = %+v", got)
	}
	if len(c.Objects) != 2 {
		t.Fatalf("objects %+v, want 2", c.Objects)
	}
	if o := c.Objects[0]; o.Kind != "Deployment" || o.Name != "web" || o.MetricName != "queue_length" {
		t.Errorf("first object %+v", o)
	}
	if o := c.Objects[1]; o.Kind != "deployment" || o.Name != "web.v2" || o.MetricName != "queue_length" {
		t.Errorf("second object %+v", o)
	}
	if c.Pods["rps"] == nil || c.ExternalFault == nil || c.ExternalFault.Fault != FaultError || c.CustomFault == nil || c.CustomFault.Fault != FaultHang {
		t.Errorf("pods %v, fault.external %+v, fault.custom %+v", c.Pods, c.ExternalFault, c.CustomFault)
	}
	// Keys that name a metric but are wrong stay, invalid, so a fetch says why.
	for _, m := range []*Metric{c.External["bad"], c.Pods["two"]} {
		if m == nil || m.Invalid == nil {
			t.Errorf("want an invalid metric, got %+v", m)
		}
	}
	wantProblems := []string{
		`"README"`,
		`"custom.object.deployment.queue_length"`,
		`"custom.pods.two"`,
		`"external.bad"`,
		`"fault.external.extra"`,
	}
	if len(c.Problems) != len(wantProblems) {
		t.Fatalf("problems %v, want %d", c.Problems, len(wantProblems))
	}
	for i, want := range wantProblems {
		if !strings.Contains(c.Problems[i].Error(), want) {
			t.Errorf("problem %d: %v, want it about %s", i, c.Problems[i], want)
		}
	}
}
