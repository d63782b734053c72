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
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The APIs a fetch can go to, as FetchKey.API.
const (
	APIExternal = "external"
	APICustom   = "custom"
)

// The outcomes of a fetch, as FetchKey.Result.
const (
	ResultOK       = "ok"        // at least one value
	ResultEmpty    = "empty"     // an empty item list
	ResultNotFound = "not_found" // no such metric
	ResultError    = "error"     // any other error status
	ResultTimeout  = "timeout"   // the request ended while the adapter held it
)

// FetchKey identifies one counter: a metric of an API and an outcome.
type FetchKey struct {
	API    string `json:"api"`
	Metric string `json:"metric"`
	Result string `json:"result"`
}

// FetchCount is one counter's value.
type FetchCount struct {
	FetchKey
	Count uint64 `json:"count"`
}

// FetchCounter counts the fetches of each metric by outcome, so that a test
// or a benchmark can tell how often the controller asked (for instance
// "external metric fetches per reconcile"). It is safe for concurrent use.
type FetchCounter struct {
	mu     sync.Mutex
	counts map[FetchKey]uint64
}

// NewFetchCounter returns a counter with every count at zero.
func NewFetchCounter() *FetchCounter {
	return &FetchCounter{counts: map[FetchKey]uint64{}}
}

// Add counts one fetch.
func (c *FetchCounter) Add(key FetchKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[key]++
}

// Snapshot returns every counter, sorted by API, metric and result.
func (c *FetchCounter) Snapshot() []FetchCount {
	c.mu.Lock()
	out := make([]FetchCount, 0, len(c.counts))
	for k, n := range c.counts {
		out = append(out, FetchCount{FetchKey: k, Count: n})
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b FetchCount) int {
		return cmp.Or(cmp.Compare(a.API, b.API), cmp.Compare(a.Metric, b.Metric), cmp.Compare(a.Result, b.Result))
	})
	return out
}

// Total is the number of fetches of one metric of one API, whatever their
// outcome.
func (c *FetchCounter) Total(api, metric string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n uint64
	for k, v := range c.counts {
		if k.API == api && k.Metric == metric {
			n += v
		}
	}
	return n
}

// record counts a fetch of metric that returned items values and err. A
// nil counter counts nothing.
func (c *FetchCounter) record(api, metric string, items int, err error) {
	if c == nil {
		return
	}
	c.Add(FetchKey{API: api, Metric: metric, Result: resultOf(items, err)})
}

func resultOf(items int, err error) string {
	switch {
	case err == nil && items > 0:
		return ResultOK
	case err == nil:
		return ResultEmpty
	case apierrors.IsNotFound(err):
		return ResultNotFound
	case apierrors.IsTimeout(err), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ResultTimeout
	default:
		return ResultError
	}
}
