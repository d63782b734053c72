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
	"sync/atomic"
	"testing"
	"time"

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

// heldExternal answers GetExternalMetric once release is closed, counting
// the calls; a call after a panic was asked for panics.
type heldExternal struct {
	metrics.Client
	release chan struct{}
	calls   atomic.Int32
	panics  bool
}

func (h *heldExternal) GetExternalMetric(context.Context, string, string, labels.Selector, string) ([]int64, time.Time, error) {
	h.calls.Add(1)
	<-h.release
	if h.panics {
		panic("provider client bug")
	}
	return []int64{7000}, time.Time{}, nil
}

// Two metrics of a pass evaluated side by side may ask the same question
// at once: the second waits for the first's fetch and gets its answer,
// as it would asking in turn.
func TestKeepAnswersSharesAFetchUnderWay(t *testing.T) {
	cases := []struct {
		name string
		// waiterCtx is the waiting asker's context, from the pass's.
		waiterCtx func(pass context.Context) context.Context
		panics    bool
		wantErr   error
	}{
		{name: "an asker during the fetch gets its answer", waiterCtx: func(p context.Context) context.Context { return p }},
		{name: "an asker gets the fetch's own answer, not its context's end", waiterCtx: func(p context.Context) context.Context {
			ctx, cancel := context.WithCancel(p)
			cancel()
			return ctx
		}},
		{name: "an asker of a fetch that panicked gets an error, not a zero answer", panics: true, wantErr: metrics.ErrFetchAbandoned,
			waiterCtx: func(p context.Context) context.Context { return p }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			held := &heldExternal{release: make(chan struct{}), panics: tc.panics}
			client := metrics.KeepAnswers(held)
			pass := metrics.WithAnswers(context.Background())
			first := make(chan struct{})
			go func() {
				defer close(first)
				defer func() { _ = recover() }()
				_, _, _ = client.GetExternalMetric(pass, "queue", "ns", nil, "")
			}()
			for held.calls.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			waited := make(chan error, 1)
			go func() {
				values, _, err := client.GetExternalMetric(tc.waiterCtx(pass), "queue", "ns", nil, "")
				if err == nil && (len(values) != 1 || values[0] != 7000) {
					err = fmt.Errorf("values %v, want [7000]", values)
				}
				waited <- err
			}()
			close(held.release)
			<-first
			if err := <-waited; !errors.Is(err, tc.wantErr) {
				t.Errorf("waiting asker: %v, want %v", err, tc.wantErr)
			}
			if n := held.calls.Load(); n != 1 {
				t.Errorf("%d fetches, want one", n)
			}
		})
	}
}

// A pass that decides again after its fetch budget ran out takes the
// answers it has, even under its ended context.
func TestKeepAnswersGivesAKeptAnswerAfterTheContextEnds(t *testing.T) {
	fake := metricstest.NewClient().SetExternal("queue", metricstest.ExternalAnswer{Values: []int64{7000}})
	client := metrics.KeepAnswers(fake)
	ctx, cancel := context.WithCancel(metrics.WithAnswers(context.Background()))
	if _, _, err := client.GetExternalMetric(ctx, "queue", "ns", nil, ""); err != nil {
		t.Fatal(err)
	}
	cancel()
	for range 100 { // a random choice between two ready cases would show
		if values, _, err := client.GetExternalMetric(ctx, "queue", "ns", nil, ""); err != nil || len(values) != 1 || values[0] != 7000 {
			t.Fatalf("after the context ended: %v, %v; want the kept [7000]", values, err)
		}
	}
}
