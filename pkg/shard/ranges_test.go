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

package shard

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apisharding "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apiserver/pkg/sharding"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want []Range
	}{
		{
			name: "one shard covers the whole space",
			n:    1,
			want: []Range{{Start: 0, End: 0}},
		},
		{
			name: "two shards meet at the middle",
			n:    2,
			want: []Range{{0, 1 << 63}, {1 << 63, 0}},
		},
		{
			name: "three shards round boundaries down",
			n:    3,
			want: []Range{
				{0, 0x5555555555555555},
				{0x5555555555555555, 0xaaaaaaaaaaaaaaaa},
				{0xaaaaaaaaaaaaaaaa, 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.n)
			if err != nil {
				t.Fatalf("Split(%d): %v", tc.n, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Split(%d) mismatch (-want +got):\n%s", tc.n, diff)
			}
		})
	}
}

func TestSplitSixteenHasEqualWidths(t *testing.T) {
	ranges, err := Split(16)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range ranges {
		if want := uint64(i) << 60; r.Start != want {
			t.Errorf("range %d starts at %#x, want %#x", i, r.Start, want)
		}
		if width := r.End - r.Start; width != 1<<60 {
			t.Errorf("range %d is %#x wide, want %#x", i, width, uint64(1)<<60)
		}
	}
}

func TestSplitRejectsCountsOutOfRange(t *testing.T) {
	for _, n := range []int{-1, 0, MaxShards + 1} {
		if _, err := Split(n); err == nil {
			t.Errorf("Split(%d) succeeded, want an error", n)
		}
	}
	if _, err := Split(MaxShards); err != nil {
		t.Errorf("Split(MaxShards): %v", err)
	}
}

// TestSplitTilesTheSpace checks, for every n up to 64, that the ranges
// start at 0, follow each other without gap or overlap, end at the end of
// the space, and differ in width by at most one.
func TestSplitTilesTheSpace(t *testing.T) {
	for n := 1; n <= 64; n++ {
		ranges, err := Split(n)
		if err != nil {
			t.Fatalf("Split(%d): %v", n, err)
		}
		if len(ranges) != n {
			t.Fatalf("Split(%d) gave %d ranges", n, len(ranges))
		}
		if ranges[0].Start != 0 {
			t.Errorf("Split(%d) starts at %#x, want 0", n, ranges[0].Start)
		}
		if last := ranges[n-1]; last.End != 0 || !last.Contains(math.MaxUint64) {
			t.Errorf("Split(%d) last range %+v does not reach the end of the space", n, last)
		}
		minWidth, maxWidth := uint64(math.MaxUint64), uint64(0)
		for i, r := range ranges {
			if !r.Valid() {
				t.Errorf("Split(%d) range %d %+v is empty", n, i, r)
			}
			if i > 0 && ranges[i-1].End != r.Start {
				t.Errorf("Split(%d) range %d starts at %#x, previous ends at %#x", n, i, r.Start, ranges[i-1].End)
			}
			width := r.End - r.Start // wraps to the right width for the last range, except n == 1
			if n == 1 {
				width = math.MaxUint64
			}
			minWidth, maxWidth = min(minWidth, width), max(maxWidth, width)
		}
		if maxWidth-minWidth > 1 {
			t.Errorf("Split(%d) widths range from %#x to %#x", n, minWidth, maxWidth)
		}
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		name string
		r    Range
		h    uint64
		want bool
	}{
		{name: "start is included", r: Range{10, 20}, h: 10, want: true},
		{name: "end is excluded", r: Range{10, 20}, h: 20, want: false},
		{name: "below start is excluded", r: Range{10, 20}, h: 9, want: false},
		{name: "end zero includes the maximum hash", r: Range{1 << 63, 0}, h: math.MaxUint64, want: true},
		{name: "end zero excludes hashes below start", r: Range{1 << 63, 0}, h: 0, want: false},
		{name: "zero range is the whole space", r: Range{}, h: 0x1234, want: true},
		{name: "inverted range contains nothing", r: Range{20, 10}, h: 15, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Contains(tc.h); got != tc.want {
				t.Errorf("%+v.Contains(%#x) = %v, want %v", tc.r, tc.h, got, tc.want)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 16, 1000, MaxShards} {
		ranges, err := Split(n)
		if err != nil {
			t.Fatal(err)
		}
		hashes := []uint64{0, math.MaxUint64}
		for _, r := range ranges {
			hashes = append(hashes, r.Start, r.Start-1, r.Start+1, r.End-1)
		}
		for range 200 {
			hashes = append(hashes, rng.Uint64())
		}
		for _, h := range hashes {
			i := Index(h, n)
			if !ranges[i].Contains(h) {
				t.Errorf("Index(%#x, %d) = %d, whose range %+v does not contain it", h, n, i, ranges[i])
			}
		}
	}
}

func TestSelector(t *testing.T) {
	tests := []struct {
		name  string
		r     Range
		field string
		want  string
	}{
		{
			name:  "bounds are 16 lowercase hex digits",
			r:     Range{0, 0xab00000000000000},
			field: NamespaceField,
			want:  "shardRange(object.metadata.namespace, '0x0000000000000000', '0xab00000000000000')",
		},
		{
			name:  "end of the space is written as 2^64",
			r:     Range{0xc000000000000000, 0},
			field: NamespaceField,
			want:  "shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')",
		},
		{
			name:  "whole space",
			r:     Range{},
			field: UIDField,
			want:  "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Selector(tc.field); got != tc.want {
				t.Errorf("Selector() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSelectorParsesAsItSelects feeds the selectors of several splits to the
// API server's parser and checks that the server echoes them unchanged and
// selects exactly the hashes and namespaces Contains does, at every
// boundary.
func TestSelectorParsesAsItSelects(t *testing.T) {
	for _, n := range []int{1, 2, 3, 16, 1000} {
		ranges, err := Split(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ranges {
			sel := parseSelector(t, r.Selector(NamespaceField))
			hashes := []uint64{0, math.MaxUint64, r.Start, r.Start - 1, r.Start + 1, r.End, r.End - 1}
			for _, h := range hashes {
				if got, want := serverSelectsHash(sel, h), r.Contains(h); got != want {
					t.Errorf("%s selects %#x: server %v, Contains %v", r.Selector(NamespaceField), h, got, want)
				}
			}
			for _, tc := range namespaceHashes {
				if got, want := serverSelectsNamespace(t, sel, tc.namespace), r.Contains(NamespaceHash(tc.namespace)); got != want {
					t.Errorf("%s selects namespace %q: server %v, Contains %v", r.Selector(NamespaceField), tc.namespace, got, want)
				}
			}
		}
	}
}

func TestSelectorFor(t *testing.T) {
	tests := []struct {
		name    string
		ranges  []Range
		want    string
		wantErr bool
	}{
		{
			name:   "one range",
			ranges: []Range{{0, 1 << 62}},
			want:   "shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000')",
		},
		{
			name:   "separate ranges are joined by or in ascending order",
			ranges: []Range{{3 << 62, 0}, {0, 1 << 62}},
			want: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000')" +
				" || shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')",
		},
		{
			name:   "adjacent ranges are merged",
			ranges: []Range{{1 << 62, 2 << 62}, {0, 1 << 62}, {2 << 62, 3 << 62}},
			want:   "shardRange(object.metadata.namespace, '0x0000000000000000', '0xc000000000000000')",
		},
		{
			name:   "every shard merges into the whole space",
			ranges: mustSplit(t, 16),
			want:   "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')",
		},
		{
			name:   "overlapping ranges are merged",
			ranges: []Range{{0, 100}, {50, 200}, {60, 70}, {300, 400}},
			want: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x00000000000000c8')" +
				" || shardRange(object.metadata.namespace, '0x000000000000012c', '0x0000000000000190')",
		},
		{
			name:    "no ranges is refused rather than selecting everything",
			ranges:  nil,
			wantErr: true,
		},
		{
			name:    "empty range is refused",
			ranges:  []Range{{0, 10}, {10, 10}},
			wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SelectorFor(tc.ranges)
			if tc.wantErr {
				if err == nil {
					t.Errorf("SelectorFor() = %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("SelectorFor(): %v", err)
			}
			if got != tc.want {
				t.Errorf("SelectorFor() = %q, want %q", got, tc.want)
			}
			parseSelector(t, got)
		})
	}
}

// TestSelectorForSelectsTheUnion checks against the API server's parser that
// the selector for random sets of shards selects exactly their union.
func TestSelectorForSelectsTheUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		n := 1 + rng.IntN(64)
		all := mustSplit(t, n)
		var owned []Range
		for _, r := range all {
			if rng.IntN(2) == 0 {
				owned = append(owned, r)
			}
		}
		if len(owned) == 0 {
			continue
		}
		expr, err := SelectorFor(owned)
		if err != nil {
			t.Fatal(err)
		}
		sel := parseSelector(t, expr)
		for _, r := range all {
			for _, h := range []uint64{r.Start, r.End - 1, r.Start + (r.End-r.Start)/2} {
				want := false
				for _, o := range owned {
					want = want || o.Contains(h)
				}
				if got := serverSelectsHash(sel, h); got != want {
					t.Errorf("%s selects %#x: server %v, owned ranges %v", expr, h, got, want)
				}
			}
		}
	}
}

func mustSplit(t *testing.T, n int) []Range {
	t.Helper()
	ranges, err := Split(n)
	if err != nil {
		t.Fatal(err)
	}
	return ranges
}

// parseSelector parses expr with the API server's parser and checks that
// the server's canonical form, which it echoes in shardInfo, is expr itself.
func parseSelector(t *testing.T, expr string) apisharding.Selector {
	t.Helper()
	sel, err := sharding.Parse(expr)
	if err != nil {
		t.Fatalf("the API server rejects %q: %v", expr, err)
	}
	if got := sel.String(); got != expr {
		t.Errorf("the API server echoes %q as %q", expr, got)
	}
	return sel
}

// serverSelectsHash evaluates the parsed requirements the way the API
// server does: the hash as 0x-prefixed 16 hex digits, compared with each
// bound by the server's HexLess.
func serverSelectsHash(sel apisharding.Selector, h uint64) bool {
	hash := hexBound(h)
	for _, req := range sel.Requirements() {
		if !apisharding.HexLess(hash, req.Start) && apisharding.HexLess(hash, req.End) {
			return true
		}
	}
	return false
}

func serverSelectsNamespace(t *testing.T, sel apisharding.Selector, namespace string) bool {
	t.Helper()
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "hpa"}}
	ok, err := sel.Matches(obj)
	if err != nil {
		t.Fatalf("the API server cannot match namespace %q: %v", namespace, err)
	}
	return ok
}

// FuzzRangeSelector checks that any valid range renders a selector the API
// server accepts, echoes unchanged and evaluates like Contains.
func FuzzRangeSelector(f *testing.F) {
	f.Add(uint64(0), uint64(0), uint64(math.MaxUint64))
	f.Add(uint64(1<<63), uint64(0), uint64(1<<63-1))
	f.Add(uint64(5), uint64(6), uint64(6))
	f.Fuzz(func(t *testing.T, start, end, h uint64) {
		r := Range{Start: start, End: end}
		if !r.Valid() {
			return
		}
		sel := parseSelector(t, r.Selector(NamespaceField))
		if got, want := serverSelectsHash(sel, h), r.Contains(h); got != want {
			t.Errorf("%s selects %#x: server %v, Contains %v", r.Selector(NamespaceField), h, got, want)
		}
	})
}
