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

package metrics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// answersKey is the context key of WithAnswers.
type answersKey struct{}

// passAnswers are the answers given under one WithAnswers context, by
// question.
type passAnswers struct {
	mu         sync.Mutex
	byQuestion map[string]*passAnswer
}

// passAnswer is one question's answer, final once done is closed.
type passAnswer struct {
	done      chan struct{}
	value     any
	timestamp time.Time
	err       error
}

// ErrFetchAbandoned is the answer of a fetch that never returned (it
// panicked), for the askers that waited for it.
var ErrFetchAbandoned = errors.New("the metric fetch this one waited for was abandoned")

// WithAnswers returns a context under which a Client wrapped by
// KeepAnswers asks each question (a call with the same arguments) until it
// has an answer, and then gives every later asker that answer, failures
// included. The HPA controller asks under one such context for every
// decision of a pass: a decision made again because the target changed
// under the first takes the metrics the pass already has, as a pass that
// had read the fresh target would have fetched them once, and a provider
// that hung until the pass's fetch budget is not waited for twice.
// A question asked while the same one is being fetched (two metrics of a
// pass, evaluated side by side, that ask the same thing) waits for that
// fetch, so that both get one answer, as when they are asked in turn.
func WithAnswers(ctx context.Context) context.Context {
	return context.WithValue(ctx, answersKey{}, &passAnswers{byQuestion: map[string]*passAnswer{}})
}

// KeepAnswers wraps c so that, under a WithAnswers context, each question
// is asked of c until it has an answer; under any other context every call
// goes to c.
func KeepAnswers(c Client) Client { return keptAnswers{c: c} }

type keptAnswers struct{ c Client }

// ask returns the answer to question under ctx's answers, fetching it when
// there is none yet; without answers in ctx it fetches.
func ask[T any](ctx context.Context, question string, fetch func() (T, time.Time, error)) (T, time.Time, error) {
	kept, ok := ctx.Value(answersKey{}).(*passAnswers)
	if !ok {
		return fetch()
	}
	kept.mu.Lock()
	a, asked := kept.byQuestion[question]
	if !asked {
		a = &passAnswer{done: make(chan struct{}), err: ErrFetchAbandoned}
		kept.byQuestion[question] = a
	}
	kept.mu.Unlock()
	if asked {
		// The fetch is bounded by the pass's fetch budget, which is the
		// asker's too; waiting on the asker's context as well would
		// answer with a bare deadline where the fetch gives its own error.
		<-a.done
		v, _ := a.value.(T)
		return v, a.timestamp, a.err
	}
	defer close(a.done)
	v, ts, err := fetch()
	a.value, a.timestamp, a.err = v, ts, err
	return v, ts, err
}

func selectorText(s labels.Selector) string {
	if s == nil {
		return "<nil>"
	}
	return s.String()
}

// The answers are copied out, so that an asker that changes its readings
// does not change another's.

func (k keptAnswers) GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector labels.Selector, container string) (PodMetricsInfo, time.Time, error) {
	q := fmt.Sprintf("resource\x00%s\x00%s\x00%s\x00%s", resource, namespace, selectorText(selector), container)
	info, ts, err := ask(ctx, q, func() (PodMetricsInfo, time.Time, error) {
		return k.c.GetResourceMetric(ctx, resource, namespace, selector, container)
	})
	return maps.Clone(info), ts, err
}

func (k keptAnswers) GetRawMetric(ctx context.Context, metricName, namespace string, selector, metricSelector labels.Selector, apiGroup string) (PodMetricsInfo, time.Time, error) {
	q := fmt.Sprintf("pods\x00%s\x00%s\x00%s\x00%s\x00%s", apiGroup, metricName, namespace, selectorText(selector), selectorText(metricSelector))
	info, ts, err := ask(ctx, q, func() (PodMetricsInfo, time.Time, error) {
		return k.c.GetRawMetric(ctx, metricName, namespace, selector, metricSelector, apiGroup)
	})
	return maps.Clone(info), ts, err
}

func (k keptAnswers) GetObjectMetric(ctx context.Context, metricName, namespace string, objectRef *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector, apiGroup string) (int64, time.Time, error) {
	ref := "<nil>"
	if objectRef != nil {
		ref = objectRef.APIVersion + "\x00" + objectRef.Kind + "\x00" + objectRef.Name
	}
	q := fmt.Sprintf("object\x00%s\x00%s\x00%s\x00%s\x00%s", apiGroup, metricName, namespace, ref, selectorText(metricSelector))
	return ask(ctx, q, func() (int64, time.Time, error) {
		return k.c.GetObjectMetric(ctx, metricName, namespace, objectRef, metricSelector, apiGroup)
	})
}

func (k keptAnswers) GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector, apiGroup string) ([]int64, time.Time, error) {
	q := fmt.Sprintf("external\x00%s\x00%s\x00%s\x00%s", apiGroup, metricName, namespace, selectorText(selector))
	values, ts, err := ask(ctx, q, func() ([]int64, time.Time, error) {
		return k.c.GetExternalMetric(ctx, metricName, namespace, selector, apiGroup)
	})
	return slices.Clone(values), ts, err
}
