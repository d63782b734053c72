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
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// DefaultFetchLogKeep is how many fetch times FetchLog keeps per series
// when NewFetchLog is given no bound: at one fetch per 15 s sync period,
// two hours of them.
const DefaultFetchLogKeep = 512

// SeriesKey is what one fetch asked for: a metric of an API and the label
// selector of the request (labels.Selector.String(), "" for every series).
// HPAs that share a fetch ask for the same key.
type SeriesKey struct {
	API      string `json:"api"`
	Metric   string `json:"metric"`
	Selector string `json:"selector"`
}

// SeriesFetches are the times the adapter received fetches of one series,
// oldest first, as Unix nanoseconds.
type SeriesFetches struct {
	SeriesKey
	UnixNanos []int64 `json:"unixNanos"`
}

// FetchLog keeps the arrival times of the last fetches of each series, so
// that a benchmark can tell how long a controller left one HPA's metric
// unasked (the gap between two passes) and which HPAs it reached in a sync
// period. It keeps at most keep times per series, so its memory is bounded
// by the number of series. It is safe for concurrent use.
type FetchLog struct {
	mu     sync.Mutex
	keep   int
	series map[SeriesKey][]int64
}

// NewFetchLog returns an empty log that keeps the last keep fetch times
// of each series (DefaultFetchLogKeep when keep < 1).
func NewFetchLog(keep int) *FetchLog {
	if keep < 1 {
		keep = DefaultFetchLogKeep
	}
	return &FetchLog{keep: keep, series: map[SeriesKey][]int64{}}
}

// Add records a fetch of key received at at, dropping the series' oldest
// time when it holds keep of them already.
func (l *FetchLog) Add(key SeriesKey, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	times := l.series[key]
	if len(times) == l.keep {
		copy(times, times[1:])
		times = times[:l.keep-1]
	}
	l.series[key] = append(times, at.UnixNano())
}

// Since returns the fetch times of every series at or after since (all of
// them for the zero time), sorted by API, metric and selector; a series
// without such a fetch is left out.
func (l *FetchLog) Since(since time.Time) []SeriesFetches {
	var from int64
	if !since.IsZero() {
		from = since.UnixNano()
	}
	l.mu.Lock()
	out := make([]SeriesFetches, 0, len(l.series))
	for k, times := range l.series {
		// Times are appended in arrival order; fetches handled at once may
		// land a little out of it, so filter rather than cut.
		var kept []int64
		for _, t := range times {
			if t >= from {
				kept = append(kept, t)
			}
		}
		if len(kept) > 0 {
			slices.Sort(kept)
			out = append(out, SeriesFetches{SeriesKey: k, UnixNanos: kept})
		}
	}
	l.mu.Unlock()
	slices.SortFunc(out, func(a, b SeriesFetches) int {
		return cmp.Or(cmp.Compare(a.API, b.API), cmp.Compare(a.Metric, b.Metric), cmp.Compare(a.Selector, b.Selector))
	})
	return out
}

// record logs a fetch of metric with selector at at. A nil log records
// nothing.
func (l *FetchLog) record(api, metric string, selector labels.Selector, at time.Time) {
	if l == nil {
		return
	}
	key := SeriesKey{API: api, Metric: metric}
	if selector != nil {
		key.Selector = selector.String()
	}
	l.Add(key, at)
}

// ServeHTTP answers the fetch times as JSON, those at or after the
// RFC 3339 time of the since parameter when given:
// {"series":[{"api":"external","metric":"queue_depth","selector":"queue=orders","unixNanos":[...]}]}.
func (l *FetchLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "only GET", http.StatusMethodNotAllowed)
		return
	}
	var since time.Time
	if s := r.URL.Query().Get("since"); s != "" {
		var err error
		if since, err = time.Parse(time.RFC3339Nano, s); err != nil {
			http.Error(w, "since: want an RFC 3339 time: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		Series []SeriesFetches `json:"series"`
	}{Series: l.Since(since)})
}
