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
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// benchT0 is the controller's start in the fetch time tests; times are
// seconds after it.
var benchT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func secs(s ...float64) []time.Time {
	out := make([]time.Time, len(s))
	for i, v := range s {
		out[i] = benchT0.Add(time.Duration(v * float64(time.Second)))
	}
	return out
}

// window30 is a steady window from +30 s to +60 s, sync period 15 s.
var window30 = fetchWindow{since: benchT0, start: benchT0.Add(30 * time.Second), end: benchT0.Add(60 * time.Second), period: 15 * time.Second}

func TestSeriesGaps(t *testing.T) {
	tests := []struct {
		name        string
		times       []time.Time
		wantGaps    []float64
		wantOpen    float64
		wantFetched bool
	}{
		{
			name:     "a fetch every period: the gaps that end in the window, the one across its start included",
			times:    secs(5, 20, 35, 50, 65),
			wantGaps: []float64{15, 15}, wantOpen: 10, wantFetched: true,
		},
		{
			name:     "a fetch on the window's edges counts in it",
			times:    secs(15, 30, 45, 60),
			wantGaps: []float64{15, 15, 15}, wantOpen: 0, wantFetched: true,
		},
		{
			name:     "a metric left unasked through the window has no gap ending in it, only the open one",
			times:    secs(10, 70),
			wantOpen: 50,
		},
		{
			name:     "a first fetch in the window counts from the controller's start",
			times:    secs(40),
			wantGaps: []float64{40}, wantOpen: 20, wantFetched: true,
		},
		{
			name:     "a metric never fetched waits from the controller's start",
			wantOpen: 60,
		},
		{
			name:     "a fetch before the controller started is another controller's",
			times:    secs(-3, 40),
			wantGaps: []float64{40}, wantOpen: 20, wantFetched: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gaps, open, fetched := seriesGaps(tc.times, window30)
			var got []float64
			for _, g := range gaps {
				got = append(got, g.Seconds())
			}
			if diff := cmp.Diff(tc.wantGaps, got); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
			if open.Seconds() != tc.wantOpen || fetched != tc.wantFetched {
				t.Errorf("open %v fetched %v, want %vs %v", open, fetched, tc.wantOpen, tc.wantFetched)
			}
		})
	}
}

func TestPeriodShares(t *testing.T) {
	tests := []struct {
		name   string
		times  map[string][]time.Time
		window fetchWindow
		want   []float64
	}{
		{
			name:   "every metric once per period: every HPA reconciled in every period",
			times:  map[string][]time.Time{"a": secs(31, 46), "b": secs(44, 59)},
			window: window30,
			want:   []float64{1, 1},
		},
		{
			name:   "a metric fetched twice in one period and not in the next counts once, in the first",
			times:  map[string][]time.Time{"a": secs(31, 44), "b": secs(35, 50)},
			window: window30,
			want:   []float64{1, 0.5},
		},
		{
			name:   "a period starts at its start, inclusive, and ends before the next",
			times:  map[string][]time.Time{"a": secs(30), "b": secs(45)},
			window: window30,
			want:   []float64{0.5, 0.5},
		},
		{
			name:   "only whole periods count",
			times:  map[string][]time.Time{"a": secs(31, 46, 61)},
			window: fetchWindow{since: benchT0, start: benchT0.Add(30 * time.Second), end: benchT0.Add(70 * time.Second), period: 15 * time.Second},
			want:   []float64{0.5, 0.5},
		},
		{
			name:   "a window shorter than a period has no share",
			times:  map[string][]time.Time{"a": secs(31)},
			window: fetchWindow{since: benchT0, start: benchT0.Add(30 * time.Second), end: benchT0.Add(40 * time.Second), period: 15 * time.Second},
			want:   []float64{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := periodShares(tc.times, []string{"a", "b"}, tc.window)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("shares (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMeasurePassGaps(t *testing.T) {
	tests := []struct {
		name          string
		times         map[string][]time.Time
		healthy, slow []string
		want          PassGaps
	}{
		{
			name: "a controller that keeps up: gaps of one period, every HPA each period",
			times: map[string][]time.Time{
				"a": secs(2, 17, 32, 47, 62), "b": secs(10, 25, 40, 55),
			},
			healthy: []string{"a", "b"},
			want:    PassGaps{Series: 2, Gaps: 4, MaxSeconds: 15, P99Seconds: 15, PeriodShares: []float64{1, 1}},
		},
		{
			name: "a starved metric: its open gap is the largest, the p99 is of the gaps that ended",
			times: map[string][]time.Time{
				"a": secs(2, 17, 32, 47), "b": secs(3),
			},
			healthy: []string{"a", "b"},
			want:    PassGaps{Series: 2, Gaps: 2, MaxSeconds: 57, P99Seconds: 15, Unfetched: 1, PeriodShares: []float64{0.5, 0.5}},
		},
		{
			name: "the slow metrics' fetches begun in the window are counted, not their gaps",
			times: map[string][]time.Time{
				"a": secs(20, 35, 50), "slow": secs(1, 31, 61),
			},
			healthy: []string{"a"},
			slow:    []string{"slow"},
			want:    PassGaps{Series: 1, Gaps: 2, MaxSeconds: 15, P99Seconds: 15, PeriodShares: []float64{1, 1}, SlowFetches: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := measurePassGaps(tc.times, tc.healthy, tc.slow, window30)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPassGapShares(t *testing.T) {
	tests := []struct {
		name              string
		shares            []float64
		wantMean, wantMin float64
	}{
		{name: "the mean and the lowest of the periods", shares: []float64{1, 0.5, 0.75, 1}, wantMean: 0.8125, wantMin: 0.5},
		{name: "no whole period is no share", shares: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PassGaps{PeriodShares: tc.shares}
			if math.Abs(p.MeanShare()-tc.wantMean) > 1e-12 || p.MinShare() != tc.wantMin {
				t.Errorf("mean %v min %v, want %v %v", p.MeanShare(), p.MinShare(), tc.wantMean, tc.wantMin)
			}
		})
	}
}

func TestDecodeFetchTimes(t *testing.T) {
	n := func(s int) int64 { return benchT0.Add(time.Duration(s) * time.Second).UnixNano() }
	body := []byte(`{"series":[
		{"api":"external","metric":"bench_unique","selector":"hpa=w-00001","unixNanos":[` + strconv.FormatInt(n(17), 10) + `,` + strconv.FormatInt(n(2), 10) + `]},
		{"api":"custom","metric":"bench_unique","selector":"hpa=w-00001","unixNanos":[` + strconv.FormatInt(n(5), 10) + `]},
		{"api":"external","metric":"bench_shared","selector":"","unixNanos":[` + strconv.FormatInt(n(3), 10) + `]}]}`)
	got, err := decodeFetchTimes(body)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]time.Time{
		// Keyed as the workload names a series; custom fetches left out;
		// times in order.
		metricRef{name: metricUnique, labelKey: "hpa", labelValue: workloadName(1)}.key(): secs(2, 17),
		"bench_shared/": secs(3),
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := decodeFetchTimes([]byte("not json")); err == nil {
		t.Error("no error for a body that is not JSON")
	}
}
