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

package differential

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing/synctest"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	upstreammetrics "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"

	ourmetrics "github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
)

// errAdapter is the failure of a metrics API, the same for both sides.
var errAdapter = errors.New("the server is currently unable to handle the request")

// The errors upstream's REST metrics client returns on an empty answer; the
// fake returns them to both sides, so that the comparison covers what the
// controllers make of them.
var (
	errNoResourceMetrics = errors.New("no metrics returned from resource metrics API")
	errNoCustomMetrics   = errors.New("no metrics returned from custom metrics API")
	errNoExternalMetrics = errors.New("no metrics returned from external metrics API")
)

type podReading struct {
	value     int64
	timestamp time.Time
	window    time.Duration
	// app is the pod's app label, for the selector of a fetch.
	app string
}

// hangBudget is how long kube-hpa waits for its fetches in one pass
// (recommend.go's fetchBudget): a fetch that hangs fails after it.
const hangBudget = syncPeriod / 2

// errHang is what upstream's world gets at once for a fetch that hangs in
// kube-hpa's: upstream has no budget, and would wait for its client's
// time-out, so it gets the error kube-hpa's REST client reports when the
// budget ends the fetch (the comparison needs one text).
var errHang = fmt.Errorf("no answer within %s: %w", hangBudget, context.DeadlineExceeded)

type podAnswer struct {
	readings map[string]podReading
	err      error
	// hang: the fetch answers nothing until its caller gives up.
	hang bool
	// slow: the fetch answers after slowFetchDelay (slowfetch.go).
	slow bool
}

type objectAnswer struct {
	value     int64
	timestamp time.Time
	err       error
	hang      bool
	slow      bool
}

type externalAnswer struct {
	values    []int64
	timestamp time.Time
	err       error
	hang      bool
	slow      bool
}

// fakeMetrics answers every metric query from what the scenario set, with
// the same data for upstream's and our metrics client interfaces. An unset
// metric answers as an empty list does. A hanging metric answers errHang
// to upstream's client at once, and kube-hpa's when its context ends.
type fakeMetrics struct {
	// hung, when set, counts the fetches that hung.
	hung func()
	mu   sync.Mutex
	// externalFetches counts the fetches of External metrics.
	externalFetches int
	// slowAnswers counts the fetches that answered after slowFetchDelay;
	// slowUntil is when the last of them answers.
	slowAnswers int
	slowUntil   time.Time
	resource    map[corev1.ResourceName]podAnswer
	pods        map[string]podAnswer
	object      map[string]objectAnswer
	external    map[string]externalAnswer
}

func newFakeMetrics() *fakeMetrics {
	return &fakeMetrics{
		resource: map[corev1.ResourceName]podAnswer{},
		pods:     map[string]podAnswer{},
		object:   map[string]objectAnswer{},
		external: map[string]externalAnswer{},
	}
}

// podMetrics answers a fetch of pod metrics for the pods selector selects,
// as the metrics APIs do: an empty answer when it selects none.
func (f *fakeMetrics) podMetrics(a podAnswer, found bool, selector labels.Selector, empty error) (map[string]podReading, time.Time, error) {
	if a.hang {
		return nil, time.Time{}, errHang
	}
	if a.err != nil {
		return nil, time.Time{}, a.err
	}
	out := make(map[string]podReading, len(a.readings))
	var oldest time.Time
	for name, r := range a.readings {
		if selector != nil && !selector.Matches(labels.Set{"app": r.app}) {
			continue
		}
		out[name] = r
		if oldest.IsZero() || r.timestamp.Before(oldest) {
			oldest = r.timestamp
		}
	}
	if !found || len(out) == 0 {
		return nil, time.Time{}, empty
	}
	return out, oldest, nil
}

func (f *fakeMetrics) resourceMetric(resource corev1.ResourceName, selector labels.Selector) (map[string]podReading, time.Time, error) {
	f.delay(func() bool { return f.resource[resource].slow })
	f.mu.Lock()
	defer f.mu.Unlock()
	a, found := f.resource[resource]
	return f.podMetrics(a, found, selector, errNoResourceMetrics)
}

func (f *fakeMetrics) rawMetric(name string, selector labels.Selector) (map[string]podReading, time.Time, error) {
	f.delay(func() bool { return f.pods[name].slow })
	f.mu.Lock()
	defer f.mu.Unlock()
	a, found := f.pods[name]
	return f.podMetrics(a, found, selector, errNoCustomMetrics)
}

func (f *fakeMetrics) objectMetric(name string) (int64, time.Time, error) {
	f.delay(func() bool { return f.object[name].slow })
	f.mu.Lock()
	defer f.mu.Unlock()
	a, found := f.object[name]
	if a.hang {
		return 0, time.Time{}, errHang
	}
	if !found {
		return 0, time.Time{}, errNoCustomMetrics
	}
	return a.value, a.timestamp, a.err
}

func (f *fakeMetrics) externalMetric(name string) ([]int64, time.Time, error) {
	f.delay(func() bool { return f.external[name].slow })
	f.mu.Lock()
	defer f.mu.Unlock()
	f.externalFetches++
	a, found := f.external[name]
	if a.hang {
		return nil, time.Time{}, errHang
	}
	if a.err != nil {
		return nil, time.Time{}, a.err
	}
	if !found || len(a.values) == 0 {
		return nil, time.Time{}, errNoExternalMetrics
	}
	return append([]int64(nil), a.values...), a.timestamp, nil
}

// delay makes a slow fetch (slowfetch.go) wait slowFetchDelay before it
// reads its answer, with f.mu released: the answer is the one set when the
// fetch answers, in both worlds. slow reads f under f.mu.
func (f *fakeMetrics) delay(slow func() bool) {
	f.mu.Lock()
	s := slow()
	if s {
		f.slowAnswers++
		f.slowUntil = time.Now().Add(slowFetchDelay)
	}
	f.mu.Unlock()
	if s {
		time.Sleep(slowFetchDelay)
	}
}

// settle waits until no slow fetch is under way and the pass that made it
// is over (every goroutine of the bubble waits): the world changes between
// passes only, as the steps assume. A slow pass moves the next one by the
// delay (slowfetch.go), so the passes drift off the steps' grid and one
// may be under way when a step's change is due; upstream fetches its
// metrics one after the other and kube-hpa at once, so a change that
// landed during the slow fetch would reach one controller's other fetches
// and not the other's. Both worlds drift alike and wait alike.
func (f *fakeMetrics) settle() {
	f.mu.Lock()
	until := f.slowUntil
	f.mu.Unlock()
	if d := time.Until(until); d > 0 {
		time.Sleep(d)
	}
	synctest.Wait()
}

// upstreamClient is fakeMetrics as upstream's metrics.MetricsClient.
type upstreamClient struct{ f *fakeMetrics }

var _ upstreammetrics.MetricsClient = upstreamClient{}

func toUpstream(in map[string]podReading) upstreammetrics.PodMetricsInfo {
	if in == nil {
		return nil
	}
	out := make(upstreammetrics.PodMetricsInfo, len(in))
	for name, r := range in {
		out[name] = upstreammetrics.PodMetric{Value: r.value, Timestamp: r.timestamp, Window: r.window}
	}
	return out
}

func (c upstreamClient) GetResourceMetric(_ context.Context, resource corev1.ResourceName, _ string, selector labels.Selector, _ string) (upstreammetrics.PodMetricsInfo, time.Time, error) {
	r, ts, err := c.f.resourceMetric(resource, selector)
	return toUpstream(r), ts, err
}

// The custom and external metrics methods of upstreamClient are in
// upstream_stock.go and upstream_native.go: the patched tree's take the
// metric's source (KEP-6382).

// ourClient is fakeMetrics as kube-hpa's metrics.Client.
type ourClient struct{ f *fakeMetrics }

var _ ourmetrics.Client = ourClient{}

func toOurs(in map[string]podReading) ourmetrics.PodMetricsInfo {
	if in == nil {
		return nil
	}
	out := make(ourmetrics.PodMetricsInfo, len(in))
	for name, r := range in {
		out[name] = ourmetrics.PodMetric{Value: r.value, Timestamp: r.timestamp, Window: r.window}
	}
	return out
}

func (c ourClient) GetResourceMetric(ctx context.Context, resource corev1.ResourceName, _ string, selector labels.Selector, _ string) (ourmetrics.PodMetricsInfo, time.Time, error) {
	r, ts, err := c.f.resourceMetric(resource, selector)
	return toOurs(r), ts, c.f.wait(ctx, err)
}

func (c ourClient) GetRawMetric(ctx context.Context, name, _ string, selector, _ labels.Selector, _ string) (ourmetrics.PodMetricsInfo, time.Time, error) {
	r, ts, err := c.f.rawMetric(name, selector)
	return toOurs(r), ts, c.f.wait(ctx, err)
}

func (c ourClient) GetObjectMetric(ctx context.Context, name, _ string, _ *autoscalingv2.CrossVersionObjectReference, _ labels.Selector, _ string) (int64, time.Time, error) {
	v, ts, err := c.f.objectMetric(name)
	return v, ts, c.f.wait(ctx, err)
}

func (c ourClient) GetExternalMetric(ctx context.Context, name, _ string, _ labels.Selector, _ string) ([]int64, time.Time, error) {
	v, ts, err := c.f.externalMetric(name)
	return v, ts, c.f.wait(ctx, err)
}

// wait makes a hanging fetch of kube-hpa's hang until ctx ends, as a
// provider that never answers does, and returns then what kube-hpa's REST
// client reports (metrics.withTimeout): how long it waited. Any other
// answer is err.
func (f *fakeMetrics) wait(ctx context.Context, err error) error {
	if !errors.Is(err, errHang) {
		return err
	}
	start := time.Now()
	<-ctx.Done()
	if f.hung != nil {
		f.hung()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", time.Since(start), ctx.Err())
	}
	return ctx.Err()
}
