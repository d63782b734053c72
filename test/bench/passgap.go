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
	"slices"
	"time"
)

// Pass gaps: where every HPA has an external metric of its own, each pass
// over an HPA is one fetch of its metric, so the adapter's record of when
// it was asked for each metric (its /debug/fetch-times) is the record of
// the passes. The gap between two fetches of one metric is how long that
// HPA went without a pass: a controller that keeps up holds it near one
// sync period.

// PassGaps is what the fetch times say of one controller's passes in a
// steady window.
type PassGaps struct {
	// Series is how many metrics were looked at: the healthy ones, where
	// some are slow (Options.SlowHPAs).
	Series int `json:"series"`
	// Gaps counts the intervals between two fetches of one metric that
	// end in the window; the first fetch after the controller started
	// counts from its start.
	Gaps       int     `json:"gaps"`
	P99Seconds float64 `json:"p99GapSeconds"`
	// MaxSeconds is the largest of them, or of the time a metric was
	// still waiting for its next fetch at the window's end, which is a
	// lower bound of a gap that has not ended.
	MaxSeconds float64 `json:"maxGapSeconds"`
	// Unfetched counts the metrics without a fetch in the window.
	Unfetched int `json:"seriesWithoutFetch"`
	// PeriodShares is, for each whole sync period of the window in turn,
	// the share of the metrics fetched at least once in it: the share of
	// the HPAs reconciled in that period.
	PeriodShares []float64 `json:"periodShares"`
	// SlowFetches counts the fetches of the slow metrics that began in
	// the window.
	SlowFetches int `json:"slowFetches,omitempty"`
}

// MeanShare is the mean of PeriodShares, 0 without a whole period.
func (p PassGaps) MeanShare() float64 {
	if len(p.PeriodShares) == 0 {
		return 0
	}
	var sum float64
	for _, s := range p.PeriodShares {
		sum += s
	}
	return sum / float64(len(p.PeriodShares))
}

// MinShare is the lowest of PeriodShares, 0 without a whole period.
func (p PassGaps) MinShare() float64 {
	if len(p.PeriodShares) == 0 {
		return 0
	}
	return slices.Min(p.PeriodShares)
}

// fetchWindow is the stretch of fetch times one controller's figures come
// from: since is when it started (no earlier fetch is its), start and end
// bound the steady window, period is the sync period.
type fetchWindow struct {
	since, start, end time.Time
	period            time.Duration
}

// seriesGaps reads the fetch times of one metric, in order: the gaps that
// end in the window (the first from w.since), the time since the last
// fetch at the window's end (from w.since without one), and whether the
// window saw a fetch.
func seriesGaps(times []time.Time, w fetchWindow) (gaps []time.Duration, open time.Duration, fetched bool) {
	last := w.since
	for _, t := range times {
		if t.Before(w.since) {
			continue
		}
		if t.After(w.end) {
			break
		}
		if !t.Before(w.start) {
			fetched = true
			gaps = append(gaps, t.Sub(last))
		}
		last = t
	}
	return gaps, w.end.Sub(last), fetched
}

// periodShares cuts the window into whole sync periods from its start and
// returns, for each, the share of series fetched at least once in it.
func periodShares(times map[string][]time.Time, series []string, w fetchWindow) []float64 {
	if w.period <= 0 || len(series) == 0 {
		return nil
	}
	periods := int(w.end.Sub(w.start) / w.period)
	shares := make([]float64, periods)
	for k := range shares {
		from := w.start.Add(time.Duration(k) * w.period)
		to := from.Add(w.period)
		reached := 0
		for _, s := range series {
			if slices.ContainsFunc(times[s], func(t time.Time) bool { return !t.Before(from) && t.Before(to) }) {
				reached++
			}
		}
		shares[k] = float64(reached) / float64(len(series))
	}
	return shares
}

// measurePassGaps sums up the fetch times of the healthy series, and
// counts the fetches of the slow ones that began in the window. Each
// series' times must be sorted.
func measurePassGaps(times map[string][]time.Time, healthy, slow []string, w fetchWindow) PassGaps {
	p := PassGaps{Series: len(healthy), PeriodShares: periodShares(times, healthy, w)}
	var all []time.Duration
	var longest time.Duration
	for _, s := range healthy {
		gaps, open, fetched := seriesGaps(times[s], w)
		if !fetched {
			p.Unfetched++
		}
		all = append(all, gaps...)
		longest = max(longest, open)
		for _, g := range gaps {
			longest = max(longest, g)
		}
	}
	p.Gaps, p.MaxSeconds = len(all), longest.Seconds()
	if len(all) > 0 {
		slices.Sort(all)
		p.P99Seconds = percentile(all, 99).Seconds()
	}
	for _, s := range slow {
		for _, t := range times[s] {
			if !t.Before(w.start) && !t.After(w.end) {
				p.SlowFetches++
			}
		}
	}
	return p
}
