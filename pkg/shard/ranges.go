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
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Field paths kube-apiserver v1.37 accepts as the first argument of
// shardRange(). Only the namespace is used by this package; the UID is
// listed so callers do not spell it by hand.
const (
	NamespaceField = "object.metadata.namespace"
	UIDField       = "object.metadata.uid"
)

// MaxShards is the largest shard count Split and Assign accept. Each owned
// range that cannot be merged with its neighbours adds about 120 bytes to the
// URL-encoded query of a list or watch, so the count is kept to what a
// request line holds comfortably.
const MaxShards = 1024

// topOfSpace is how a selector writes 2^64, the exclusive end of the hash
// space: the API server accepts 16 hex digits for every bound except this
// one, which has 17.
const topOfSpace = "0x10000000000000000"

// Range is the half-open interval [Start, End) of the 64-bit hash space.
//
// End is read modulo 2^64: End == 0 stands for 2^64, the end of the space,
// so a range ending at 0 contains 0xffffffffffffffff. The last range of a
// Split ends at 0, and the zero Range is the whole space. Any other range
// needs Start < End.
type Range struct {
	Start, End uint64
}

// Valid reports whether r is a non-empty range: its end is the end of the
// hash space or lies above its start.
func (r Range) Valid() bool {
	return r.End == 0 || r.Start < r.End
}

// Contains reports whether the hash h lies in r.
func (r Range) Contains(h uint64) bool {
	return h >= r.Start && (r.End == 0 || h < r.End)
}

// Selector renders r as a shardRange() expression over field, in the
// canonical form the API server echoes back in a list's shardInfo: both
// bounds as quoted, 0x-prefixed, lowercase, 16-digit hex, except the end of
// the hash space, which is written as 2^64 (17 digits).
func (r Range) Selector(field string) string {
	return fmt.Sprintf("shardRange(%s, '%s', '%s')", field, hexBound(r.Start), endBound(r.End))
}

func hexBound(v uint64) string {
	return fmt.Sprintf("0x%016x", v)
}

func endBound(end uint64) string {
	if end == 0 {
		return topOfSpace
	}
	return hexBound(end)
}

// Split cuts the hash space into n contiguous ranges of equal width, in
// ascending order: the first starts at 0 and the last ends at the end of the
// space (End == 0). When n is not a power of two the widths differ by at
// most one. n must be from 1 to MaxShards.
func Split(n int) ([]Range, error) {
	if err := validateShardCount(n); err != nil {
		return nil, err
	}
	ranges := make([]Range, n)
	for i := range ranges {
		ranges[i] = Range{Start: boundary(i, n), End: boundary(i+1, n)}
	}
	return ranges, nil
}

// Index returns the position, in Split(n), of the range that contains h.
// n must be from 1 to MaxShards; Index panics otherwise.
func Index(h uint64, n int) int {
	if err := validateShardCount(n); err != nil {
		panic(err)
	}
	// floor(h*n / 2^64) is the index, or one less when h sits exactly on a
	// boundary that was rounded down.
	i, _ := bits.Mul64(h, uint64(n))
	if next := int(i) + 1; next < n && h >= boundary(next, n) {
		return next
	}
	return int(i)
}

// boundary returns floor(i * 2^64 / n), the start of range i of Split(n);
// boundary(n, n) is 2^64, which wraps to 0.
func boundary(i, n int) uint64 {
	if i == n {
		return 0
	}
	q, _ := bits.Div64(uint64(i), 0, uint64(n))
	return q
}

func validateShardCount(n int) error {
	if n < 1 || n > MaxShards {
		return fmt.Errorf("shard count %d is out of range: must be from 1 to %d", n, MaxShards)
	}
	return nil
}

// SelectorFor renders the shardSelector that selects the namespaces hashing
// into any of ranges. The API server's grammar is shardRange() calls joined
// by ||, all over the same field, so one list or watch can cover every range
// a replica owns. Ranges that touch or overlap are merged first, which keeps
// the expression short: a replica owning every shard sends a single range.
//
// It fails when ranges is empty, because an empty shardSelector means "no
// sharding" and would select every namespace, and when a range is not Valid,
// because the API server would reject it.
func SelectorFor(ranges []Range) (string, error) {
	if len(ranges) == 0 {
		return "", fmt.Errorf("no ranges: an empty shard selector would select every namespace")
	}
	if err := validateRanges(ranges); err != nil {
		return "", err
	}
	merged := coalesce(ranges)
	parts := make([]string, len(merged))
	for i, r := range merged {
		parts[i] = r.Selector(NamespaceField)
	}
	return strings.Join(parts, " || "), nil
}

func validateRanges(ranges []Range) error {
	for i, r := range ranges {
		if !r.Valid() {
			return fmt.Errorf("range %d [%s, %s) is empty: start must be below end", i, hexBound(r.Start), endBound(r.End))
		}
	}
	return nil
}

// coalesce returns valid ranges sorted by start, with ranges that touch or
// overlap merged into one.
func coalesce(ranges []Range) []Range {
	sorted := slices.Clone(ranges)
	slices.SortFunc(sorted, func(a, b Range) int { return cmp.Compare(a.Start, b.Start) })
	merged := make([]Range, 0, len(sorted))
	for _, r := range sorted {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			if last.End == 0 {
				// The last merged range already reaches the end of the space.
				break
			}
			if r.Start <= last.End {
				if r.End == 0 || r.End > last.End {
					last.End = r.End
				}
				continue
			}
		}
		merged = append(merged, r)
	}
	return merged
}
