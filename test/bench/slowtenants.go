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
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// The slow-tenants scenario: every HPA has an external metric of its own,
// and a few of them, spread evenly over the HPAs, one the adapter answers
// only after a long delay, as a tenant's slow metrics provider would. A
// controller whose workers wait on those fetches reconciles the healthy
// HPAs late; the table counts, period by period, the share of healthy HPAs
// whose metric was fetched (passgap.go). The modes that fail mid-run
// (slowmode.go) also time the healthy HPAs' metric changes before and
// after the failures began, and the slow HPAs' fallback (slowfaults.go).

// metricSlow is the external metric of the slow HPAs, each with a
// selector of its own; its ConfigMap key holds every answer back by
// Options.SlowDelay, or plays the failing modes' faults.
const metricSlow = "bench_slow"

// slowTenantWarmUpLimit bounds the wait for a first pass: a controller
// without a bound on a fetch needs the slow HPAs' delay for each of them
// over its workers (50 HPAs at 30 s on 5 workers: 300 s), and must still
// be measured.
const slowTenantWarmUpLimit = 90 * time.Second

// fallbackGate is the feature gate kube-hpa needs for the slow HPAs'
// fallback; it is alpha, off by default.
const fallbackGate = "--feature-gates=HPAExternalMetricFallback=true"

// slowTenants is extra as the slow-tenants scenario of mode: distinct
// metrics, a share of them slow, the steady window alone, or for the
// modes that fail mid-run, with the latency phases and the fallback.
func (o Options) slowTenants(extra Options, mode SlowTenantsMode) Options {
	s := extra
	s.HPAs, s.DistinctMetrics, s.LatencyHPAs = o.SlowTenantHPAs, true, 0
	s.SlowHPAs = o.slowTenantCount()
	s.SlowDelay, s.SlowMode = o.SlowTenantDelay, mode
	s.WarmUpLimit, s.Window = slowTenantWarmUpLimit, o.SlowTenantWindow
	s.FetchTimes = true
	// What the table asks is how many healthy HPAs a controller reaches
	// per period: the steady window answers it, and a latency phase or a
	// saturation would be timed behind the slow fetches.
	s.SkipLatency, s.SkipSaturation = true, true
	if mode.failsMidRun() {
		// Here the latency is a question of the table: whether the
		// healthy HPAs' metric changes still reach their scale as fast
		// once the slow ones fail as before, on the same controller.
		s.LatencyHPAs, s.SkipLatency = o.LatencyHPAs, o.LatencyHPAs == 0
		s.SlowDelay = 0 // the metric answers at once until the window
		s.FlapPeriod, s.FallbackAfter = o.SlowTenantFlapPeriod, o.SlowTenantFallbackAfter
		s.KubeHPAFlags = append(slices.Clone(extra.KubeHPAFlags), fallbackGate)
	}
	return s
}

// slowTenantCount is how many of the scenario's HPAs are slow.
func (o Options) slowTenantCount() int {
	return max(1, int(math.Round(float64(o.SlowTenantHPAs)*o.SlowTenantShare)))
}

// validateSlowTenantModes reports the modes, and their options, that
// cannot work.
func (o Options) validateSlowTenantModes() []error {
	var errs []error
	if len(o.SlowTenantModes) == 0 {
		errs = append(errs, errors.New("slow-tenants-mode: at least one mode"))
	}
	failing := false
	for _, m := range o.SlowTenantModes {
		if !slices.Contains(slowTenantsModes, m) {
			errs = append(errs, fmt.Errorf("slow-tenants-mode %q: want one of %s", m, FormatSlowTenantsModes(slowTenantsModes)))
		}
		failing = failing || m.failsMidRun()
	}
	if !failing {
		return errs
	}
	if o.SlowTenantFlapPeriod < 0 {
		errs = append(errs, fmt.Errorf("slow-tenants-flap-period must not be negative (0 is one sync period), got %v", o.SlowTenantFlapPeriod))
	}
	// The API's bounds of failureDurationSeconds, in whole seconds.
	if d := o.SlowTenantFallbackAfter; d < 3*time.Minute || d > 24*time.Hour || d%time.Second != 0 {
		errs = append(errs, fmt.Errorf("slow-tenants-fallback-after must be whole seconds from 3m to 24h, got %v", d))
	}
	if n := o.slowTenantCount(); n > o.SlowTenantHPAs-o.LatencyHPAs {
		errs = append(errs, fmt.Errorf("the %d slow HPAs and %d latency HPAs do not fit in slow-tenants-hpas (%d)", n, o.LatencyHPAs, o.SlowTenantHPAs))
	}
	return errs
}

// slowHPA says whether HPA i has the slow metric: the last of each run of
// the HPAs after the latency ones, split in SlowHPAs runs, so that the
// slow HPAs are spread over the order in which a controller lists them.
func slowHPA(i int, o Options) bool {
	if o.SlowHPAs <= 0 || i < o.LatencyHPAs {
		return false
	}
	j, stride := i-o.LatencyHPAs, (o.HPAs-o.LatencyHPAs)/o.SlowHPAs
	return j%stride == stride-1 && j/stride < o.SlowHPAs
}

// slowHPAIndexes lists the slow HPAs.
func slowHPAIndexes(o Options) []int {
	var out []int
	for i := range o.HPAs {
		if slowHPA(i, o) {
			out = append(out, i)
		}
	}
	return out
}

// fetchSeries splits the series the workload's HPAs ask for (metricRef.key)
// into the healthy ones and the slow ones.
func fetchSeries(o Options) (healthy, slow []string) {
	seen := map[string]bool{}
	for i := range o.HPAs {
		key := metricFor(i, o).key()
		if seen[key] {
			continue
		}
		seen[key] = true
		if slowHPA(i, o) {
			slow = append(slow, key)
		} else {
			healthy = append(healthy, key)
		}
	}
	return healthy, slow
}
