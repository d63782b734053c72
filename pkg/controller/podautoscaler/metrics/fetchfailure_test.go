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
