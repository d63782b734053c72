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

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"time"
)

// fetchTimes reads the adapter's record of the external metric fetches
// (its /debug/fetch-times) since the given time: the arrival times of each
// series, oldest first, keyed as metricRef.key names a series.
func (a *adapter) fetchTimes(ctx context.Context, since time.Time) (map[string][]time.Time, error) {
	body, err := a.get(ctx, "/debug/fetch-times?since="+url.QueryEscape(since.UTC().Format(time.RFC3339Nano)))
	if err != nil {
		return nil, err
	}
	return decodeFetchTimes(body)
}

// decodeFetchTimes reads the adapter's answer: the external series only,
// keyed metric/selector.
func decodeFetchTimes(body []byte) (map[string][]time.Time, error) {
	var doc struct {
		Series []struct {
			API       string  `json:"api"`
			Metric    string  `json:"metric"`
			Selector  string  `json:"selector"`
			UnixNanos []int64 `json:"unixNanos"`
		} `json:"series"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decoding /debug/fetch-times: %w", err)
	}
	out := map[string][]time.Time{}
	for _, s := range doc.Series {
		if s.API != "external" {
			continue
		}
		times := make([]time.Time, len(s.UnixNanos))
		for i, n := range s.UnixNanos {
			times[i] = time.Unix(0, n)
		}
		slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
		key := s.Metric + "/" + s.Selector
		out[key] = append(out[key], times...)
	}
	return out, nil
}

// passGaps reads the fetch times of the window d of controller c, and sums
// them up over the workload's series (passgap.go).
func (r *runner) passGaps(ctx context.Context, c *runningController, d delta) (*PassGaps, error) {
	times, err := r.probes.adapter.fetchTimes(ctx, c.started)
	if err != nil {
		return nil, err
	}
	healthy, slow := fetchSeries(r.opts)
	p := measurePassGaps(times, healthy, slow, fetchWindow{since: c.started, start: d.from, end: d.to, period: r.opts.SyncPeriod})
	r.logger.Info("Pass gaps measured", "controller", c.spec.name, "maxGapSeconds", p.MaxSeconds, "p99GapSeconds", p.P99Seconds,
		"unfetched", p.Unfetched, "meanShare", p.MeanShare())
	return &p, nil
}
