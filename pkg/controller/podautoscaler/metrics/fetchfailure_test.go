package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

func TestMarkFetchFailures(t *testing.T) {
	boom := errors.New("adapter down")
	fake := metricstest.NewClient().
		SetExternal("down", metricstest.ExternalAnswer{Err: boom}).
		SetExternal("up", metricstest.ExternalAnswer{Values: []int64{1000}})
	client := metrics.MarkFetchFailures(fake)
	ctx := context.Background()

	_, _, err := client.GetExternalMetric(ctx, "down", "ns", labels.Everything(), "")
	if !metrics.IsFetchFailure(err) || !errors.Is(err, boom) || err.Error() != boom.Error() {
		t.Errorf("a failed fetch = %v: want it marked, wrapping the cause, with the cause's text", err)
	}
	if !metrics.IsFetchFailure(fmt.Errorf("the calculator adds context: %w", err)) {
		t.Error("the mark is lost once the error is wrapped")
	}
	if _, _, err := client.GetExternalMetric(ctx, "up", "ns", labels.Everything(), ""); err != nil {
		t.Errorf("a successful fetch = %v", err)
	}
	if _, _, err := client.GetRawMetric(ctx, "unknown", "ns", labels.Everything(), labels.Everything(), ""); err != nil && !metrics.IsFetchFailure(err) {
		t.Errorf("a failed pods metric fetch = %v, not marked", err)
	}
	if metrics.IsFetchFailure(errors.New("not from the client")) {
		t.Error("an error of another origin is taken for a fetch failure")
	}
}
