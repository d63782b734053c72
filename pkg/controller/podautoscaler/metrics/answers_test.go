package metrics_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// TestKeepAnswers pins what a pass's decisions share: under one
// WithAnswers context each question is asked once, failures included, and
// every asker gets a copy of its own; another question, or a context
// without answers, asks again.
func TestKeepAnswers(t *testing.T) {
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	other := labels.SelectorFromSet(labels.Set{"app": "other"})
	fake := metricstest.NewClient().
		SetExternal("queue", metricstest.ExternalAnswer{Values: []int64{7000}}).
		SetResource(corev1.ResourceCPU, metricstest.PodsAnswer{Metrics: metrics.PodMetricsInfo{"p0": {Value: 100}}})
	client := metrics.KeepAnswers(fake)

	pass := metrics.WithAnswers(context.Background())
	for range 2 {
		values, _, err := client.GetExternalMetric(pass, "queue", "ns", web, "")
		if err != nil || len(values) != 1 || values[0] != 7000 {
			t.Fatalf("GetExternalMetric = %v, %v; want [7000]", values, err)
		}
		values[0] = 0 // the next asker's copy is its own
		if _, _, err := client.GetExternalMetric(pass, "missing", "ns", web, ""); err == nil {
			t.Fatal("GetExternalMetric of an unset metric succeeded")
		}
		info, _, err := client.GetResourceMetric(pass, corev1.ResourceCPU, "ns", web, "")
		if err != nil || info["p0"].Value != 100 {
			t.Fatalf("GetResourceMetric = %v, %v; want p0 at 100", info, err)
		}
		delete(info, "p0")
	}
	if got := fake.Calls(metricstest.External, "queue"); got != 1 {
		t.Errorf("queue was fetched %d times under one context, want once", got)
	}
	if got := fake.Calls(metricstest.External, "missing"); got != 1 {
		t.Errorf("a failed fetch was asked %d times under one context, want once", got)
	}

	if _, _, err := client.GetExternalMetric(pass, "queue", "ns", other, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.GetExternalMetric(context.Background(), "queue", "ns", web, ""); err != nil {
		t.Fatal(err)
	}
	if got := fake.Calls(metricstest.External, "queue"); got != 3 {
		t.Errorf("queue was fetched %d times, want 3: once more for another selector and once without answers", got)
	}

	// A source's metric is another question than the default API's.
	fake.SetExternalFrom("a.example.com", "queue", metricstest.ExternalAnswer{Values: []int64{9000}})
	for range 2 {
		values, _, err := client.GetExternalMetric(pass, "queue", "ns", web, "a.example.com")
		if err != nil || len(values) != 1 || values[0] != 9000 {
			t.Fatalf("GetExternalMetric from a.example.com = %v, %v; want [9000], not the default API's answer", values, err)
		}
	}
	if got := fake.Calls(metricstest.External, "queue"); got != 4 {
		t.Errorf("queue was fetched %d times, want 4: once more from the source, once only", got)
	}
}
