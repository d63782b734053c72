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

// Package metricstest provides a fake metrics.Client whose answers a test
// sets per metric, and which records every call made to it.
package metricstest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
)

// Kind tells which of the metrics.Client methods a call went to.
type Kind string

const (
	// Resource is GetResourceMetric.
	Resource Kind = "Resource"
	// Pods is GetRawMetric.
	Pods Kind = "Pods"
	// Object is GetObjectMetric.
	Object Kind = "Object"
	// External is GetExternalMetric.
	External Kind = "External"
)

// Request is one call made to the fake, with its arguments.
type Request struct {
	Kind Kind
	// Name is the metric name, or the resource name for Resource.
	Name      string
	Namespace string
	// Selector selects the pods (Resource, Pods) or the external metric's
	// series (External).
	Selector labels.Selector
	// MetricSelector narrows a custom metric (Pods, Object).
	MetricSelector labels.Selector
	// Container is the container asked for (Resource).
	Container string
	// ObjectRef is the described object (Object).
	ObjectRef *autoscalingv2.CrossVersionObjectReference
	// APIGroup is the source the metric was routed to (Pods, Object,
	// External); empty for the default API.
	APIGroup string
}

// PodsAnswer is what the fake returns for a resource or pods metric.
type PodsAnswer struct {
	Metrics   metrics.PodMetricsInfo
	Timestamp time.Time
	Err       error
}

// ObjectAnswer is what the fake returns for an object metric.
type ObjectAnswer struct {
	Value     int64
	Timestamp time.Time
	Err       error
}

// ExternalAnswer is what the fake returns for an external metric.
type ExternalAnswer struct {
	Values    []int64
	Timestamp time.Time
	Err       error
}

// Hook runs at the start of every call. A non-nil error it returns becomes
// the call's error; nil lets the configured answer through.
type Hook func(ctx context.Context, req Request) error

// BlockUntilDone is a Hook that blocks until the call's context is done, as
// an adapter that never answers would.
func BlockUntilDone(ctx context.Context, _ Request) error {
	<-ctx.Done()
	return ctx.Err()
}

// Client is a fake metrics.Client. A metric with no answer set fails with an
// error wrapping metrics.ErrNoMetrics, as an adapter that has nothing for it
// would. It is safe for concurrent use; the zero value is not, use
// NewClient.
type Client struct {
	mu       sync.Mutex
	resource map[corev1.ResourceName]PodsAnswer
	pods     map[string]PodsAnswer
	object   map[string]ObjectAnswer
	external map[string]ExternalAnswer
	hook     Hook
	requests []Request
}

var _ metrics.Client = &Client{}

// NewClient returns a fake with no answers set.
func NewClient() *Client {
	return &Client{
		resource: map[corev1.ResourceName]PodsAnswer{},
		pods:     map[string]PodsAnswer{},
		object:   map[string]ObjectAnswer{},
		external: map[string]ExternalAnswer{},
	}
}

// SetResource sets the answer for the resource metric of resource.
func (c *Client) SetResource(resource corev1.ResourceName, a PodsAnswer) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resource[resource] = a
	return c
}

// SetPods sets the answer for the pods metric metricName.
func (c *Client) SetPods(metricName string, a PodsAnswer) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods[metricName] = a
	return c
}

// SetObject sets the answer for the object metric metricName.
func (c *Client) SetObject(metricName string, a ObjectAnswer) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.object[metricName] = a
	return c
}

// SetExternal sets the answer for the external metric metricName.
func (c *Client) SetExternal(metricName string, a ExternalAnswer) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.external[metricName] = a
	return c
}

// SetPodsFrom, SetObjectFrom and SetExternalFrom set the answer for a
// metric routed to apiGroup (KEP-6382). The answers of the default API and
// of each group are apart: a call routed to a group that has no answer
// fails as an unknown metric, whatever the default API has.
func (c *Client) SetPodsFrom(apiGroup, metricName string, a PodsAnswer) *Client {
	return c.SetPods(sourceKey(apiGroup, metricName), a)
}

// SetObjectFrom is SetObject for a metric routed to apiGroup.
func (c *Client) SetObjectFrom(apiGroup, metricName string, a ObjectAnswer) *Client {
	return c.SetObject(sourceKey(apiGroup, metricName), a)
}

// SetExternalFrom is SetExternal for a metric routed to apiGroup.
func (c *Client) SetExternalFrom(apiGroup, metricName string, a ExternalAnswer) *Client {
	return c.SetExternal(sourceKey(apiGroup, metricName), a)
}

// sourceKey is the answer key of a metric: its name for the default API,
// and group/name for a routed one (a metric name has no slash).
func sourceKey(apiGroup, metricName string) string {
	if apiGroup == "" {
		return metricName
	}
	return apiGroup + "/" + metricName
}

// SetHook sets the hook every call runs first; nil removes it.
func (c *Client) SetHook(h Hook) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hook = h
	return c
}

// Calls returns how many calls of kind asked for the metric name (the
// resource name for Resource).
func (c *Client) Calls(kind Kind, name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.requests {
		if r.Kind == kind && r.Name == name {
			n++
		}
	}
	return n
}

// Requests returns every call made so far, oldest first.
func (c *Client) Requests() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.requests)
}

// ResetRequests forgets the calls made so far.
func (c *Client) ResetRequests() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = nil
}

// record notes req and runs the hook outside the lock, so that a blocking
// hook does not hold up other callers.
func (c *Client) record(ctx context.Context, req Request) error {
	c.mu.Lock()
	c.requests = append(c.requests, req)
	hook := c.hook
	c.mu.Unlock()
	if hook == nil {
		return nil
	}
	return hook(ctx, req)
}

func notSet(kind Kind, name string) error {
	return fmt.Errorf("metricstest: %w for %s metric %q (no answer set)", metrics.ErrNoMetrics, kind, name)
}

// GetResourceMetric implements metrics.Client.
func (c *Client) GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector labels.Selector, container string) (metrics.PodMetricsInfo, time.Time, error) {
	req := Request{Kind: Resource, Name: string(resource), Namespace: namespace, Selector: selector, Container: container}
	if err := c.record(ctx, req); err != nil {
		return nil, time.Time{}, err
	}
	c.mu.Lock()
	a, found := c.resource[resource]
	c.mu.Unlock()
	return podsAnswer(a, found, req)
}

// GetRawMetric implements metrics.Client.
func (c *Client) GetRawMetric(ctx context.Context, metricName, namespace string, selector, metricSelector labels.Selector, apiGroup string) (metrics.PodMetricsInfo, time.Time, error) {
	req := Request{Kind: Pods, Name: metricName, Namespace: namespace, Selector: selector, MetricSelector: metricSelector, APIGroup: apiGroup}
	if err := c.record(ctx, req); err != nil {
		return nil, time.Time{}, err
	}
	c.mu.Lock()
	a, found := c.pods[sourceKey(apiGroup, metricName)]
	c.mu.Unlock()
	return podsAnswer(a, found, req)
}

// podsAnswer hands out a copy of the configured readings: callers are free
// to change the map they get, as they are with the real client.
func podsAnswer(a PodsAnswer, found bool, req Request) (metrics.PodMetricsInfo, time.Time, error) {
	if !found {
		return nil, time.Time{}, notSet(req.Kind, req.Name)
	}
	if a.Err != nil {
		return nil, time.Time{}, a.Err
	}
	return maps.Clone(a.Metrics), a.Timestamp, nil
}

// GetObjectMetric implements metrics.Client.
func (c *Client) GetObjectMetric(ctx context.Context, metricName, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector, apiGroup string) (int64, time.Time, error) {
	req := Request{Kind: Object, Name: metricName, Namespace: namespace, MetricSelector: metricSelector, ObjectRef: objectRef, APIGroup: apiGroup}
	if err := c.record(ctx, req); err != nil {
		return 0, time.Time{}, err
	}
	c.mu.Lock()
	a, found := c.object[sourceKey(apiGroup, metricName)]
	c.mu.Unlock()
	if !found {
		return 0, time.Time{}, notSet(Object, metricName)
	}
	if a.Err != nil {
		return 0, time.Time{}, a.Err
	}
	return a.Value, a.Timestamp, nil
}

// GetExternalMetric implements metrics.Client.
func (c *Client) GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error) {
	req := Request{Kind: External, Name: metricName, Namespace: namespace, Selector: selector, APIGroup: apiGroup}
	if err := c.record(ctx, req); err != nil {
		return nil, time.Time{}, err
	}
	c.mu.Lock()
	a, found := c.external[sourceKey(apiGroup, metricName)]
	c.mu.Unlock()
	if !found {
		return nil, time.Time{}, notSet(External, metricName)
	}
	if a.Err != nil {
		return nil, time.Time{}, a.Err
	}
	if len(a.Values) == 0 {
		// The real client never returns an empty list without an error.
		return nil, time.Time{}, fmt.Errorf("metricstest: %w for external metric %q (empty answer)", metrics.ErrNoMetrics, metricName)
	}
	return slices.Clone(a.Values), a.Timestamp, nil
}
