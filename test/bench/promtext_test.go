package bench

import (
	"strings"
	"testing"
)

func TestParseSamples(t *testing.T) {
	const text = `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",group="apps",resource="deployments",subresource="scale",verb="GET",version="v1"} 12
apiserver_request_total{code="200",group="",resource="pods",subresource="",verb="LIST",version="v1"} 3 1700000000000
apiserver_request_total{code="200",resource="",verb="GET",quote="a \"b\", }c"} 1.5e+01
other_total 7
horizontal_pod_autoscaler_controller_reconciliations_total{action="none",error="none"} 40
`
	tests := []struct {
		name   string
		names  []string
		want   int
		values map[string]float64 // by requestKey
	}{
		{name: "one metric, labels with escapes and timestamps", names: []string{requestMetric}, want: 3,
			values: map[string]float64{"GET apps/deployments/scale": 12, "LIST pods": 3, "GET (non-resource)": 15}},
		{name: "every metric", want: 5},
		{name: "a metric without labels", names: []string{"other_total"}, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			samples, err := parseSamples(strings.NewReader(text), tc.names...)
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != tc.want {
				t.Fatalf("got %d samples, want %d: %+v", len(samples), tc.want, samples)
			}
			if tc.values == nil {
				return
			}
			got := sumBy(samples, requestKey)
			for k, v := range tc.values {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}

func TestParseSamplesRejectsMalformed(t *testing.T) {
	for _, line := range []string{
		`metric{a="1"`,
		`metric{a=1} 2`,
		`metric{a="1"} x`,
		`metric{a="1"}`,
	} {
		if _, err := parseSamples(strings.NewReader(line + "\n")); err == nil {
			t.Errorf("%q parsed without error", line)
		}
	}
}

func TestRequestKey(t *testing.T) {
	tests := []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"verb": "GET", "group": "apps", "resource": "deployments", "subresource": "scale"}, "GET apps/deployments/scale"},
		{map[string]string{"verb": "WATCH", "resource": "pods"}, "WATCH pods"},
		{map[string]string{"verb": "PUT", "group": "autoscaling", "resource": "horizontalpodautoscalers", "subresource": "status"}, "PUT autoscaling/horizontalpodautoscalers/status"},
		{map[string]string{"verb": "GET", "group": externalGroup, "resource": "bench_shared"}, "GET " + externalGroup},
		{map[string]string{"verb": "GET"}, "GET (non-resource)"},
		{map[string]string{"resource": "pods"}, ""},
	}
	for _, tc := range tests {
		if got := requestKey(tc.labels); got != tc.want {
			t.Errorf("requestKey(%v) = %q, want %q", tc.labels, got, tc.want)
		}
	}
}
