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
	"math"
	"math/rand/v2"
)

// gen draws the parts of a scenario. Each scenario has a generator of its
// own, seeded from the run's seed and the scenario's index, so that one
// failing scenario is reproduced alone with -seed and -case.
type gen struct {
	r *rand.Rand
	// overflowShare keeps that share of the readings metricValue would
	// draw large enough to overflow a proposal (1: all of them).
	overflowShare float64
}

func newGen(seed int64, index int) *gen {
	return &gen{r: rand.New(rand.NewPCG(uint64(seed), uint64(index))), overflowShare: 1}
}

// sequenceOverflowShare is the overflowShare of the sequences. Their steps
// where a proposal overflows are excused (upstream's wrapped conversion
// against kube-hpa's saturation, a deliberate difference), so at the
// calculator's rate about 2.3% of all steps went unchecked; the calculator
// comparison, at the full rate, checks the overflowing proposals
// themselves, and a tenth of the rate still puts one in a sequence in
// about two hundred.
const sequenceOverflowShare = 0.1

// newSequenceGen is newGen for sequences.
func newSequenceGen(seed int64, index int) *gen {
	g := newGen(seed, index)
	g.overflowShare = sequenceOverflowShare
	return g
}

// chance is true with probability p.
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// intn returns an int in [lo, hi].
func (g *gen) intn(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func pick[T any](g *gen, choices ...T) T { return choices[g.r.IntN(len(choices))] }

// metricValue draws a metric reading as a milli-value: mostly ordinary, with
// the edges a metrics pipeline can produce: zero, negative, and values so
// large that sums and ratios overflow.
func (g *gen) metricValue() int64 {
	switch g.intn(0, 19) {
	case 0:
		return 0
	case 1:
		return -int64(g.intn(1, 5000))
	case 2:
		if g.chance(g.overflowShare) {
			return pick(g, int64(math.MaxInt64), int64(math.MaxInt64/2), int64(1e16), int64(1e18), int64(math.MinInt64))
		}
	case 3:
		if g.chance(g.overflowShare) {
			return int64(g.intn(1, 1_000_000_000))
		}
	}
	return int64(g.intn(1, 4000))
}

// targetValue draws an AverageValue or Value target as a milli-value; the
// API requires it to be positive.
func (g *gen) targetValue() int64 {
	switch g.intn(0, 9) {
	case 0:
		return 1
	case 1:
		return pick(g, int64(1e15), int64(math.MaxInt64))
	case 2:
		return int64(g.intn(1, 1_000_000))
	default:
		return pick(g, int64(100), int64(250), int64(500), int64(1000), int64(2000), int64(g.intn(1, 3000)))
	}
}

// tolerance draws a tolerance as upstream's flag or the HPAConfigurableTolerance
// field could set it.
func (g *gen) tolerance() float64 {
	switch g.intn(0, 5) {
	case 0:
		return 0
	case 1:
		return pick(g, 0.01, 0.05, 0.2, 0.5, 1)
	case 2:
		return float64(g.intn(0, 100)) / 100
	default:
		return 0.1
	}
}
