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
	"time"
)

// The slow-tenants scenario: every HPA has an external metric of its own,
// and a few of them, spread evenly over the HPAs, one the adapter answers
// only after a long delay, as a tenant's slow metrics provider would. A
// controller whose workers wait on those fetches reconciles the healthy
// HPAs late; the table counts, period by period, the share of healthy HPAs
// whose metric was fetched (passgap.go).

// metricSlow is the external metric of the slow HPAs, each with a
// selector of its own; its ConfigMap key holds every answer back by
// Options.SlowDelay.
const metricSlow = "bench_slow"

// slowTenantWarmUpLimit bounds the wait for a first pass: a controller
// without a bound on a fetch needs the slow HPAs' delay for each of them
// over its workers (50 HPAs at 30 s on 5 workers: 300 s), and must still
// be measured.
const slowTenantWarmUpLimit = 90 * time.Second

// slowTenants is extra as the slow-tenants scenario: distinct metrics, a
// share of them slow, the steady window alone.
func (o Options) slowTenants(extra Options) Options {
	s := extra
	s.HPAs, s.DistinctMetrics, s.LatencyHPAs = o.SlowTenantHPAs, true, 0
	s.SlowHPAs = max(1, int(math.Round(float64(o.SlowTenantHPAs)*o.SlowTenantShare)))
	s.SlowDelay = o.SlowTenantDelay
	s.WarmUpLimit, s.Window = slowTenantWarmUpLimit, o.SlowTenantWindow
	s.FetchTimes = true
	// What the table asks is how many healthy HPAs a controller reaches
	// per period: the steady window answers it, and a latency phase or a
	// saturation would be timed behind the slow fetches.
	s.SkipLatency, s.SkipSaturation = true, true
	return s
}

// slowHPA says whether HPA i has the slow metric: the last of each run of
// HPAs/SlowHPAs, so that the slow HPAs are spread over the order in which
// a controller lists them.
func slowHPA(i int, o Options) bool {
	if o.SlowHPAs <= 0 {
		return false
	}
	stride := o.HPAs / o.SlowHPAs
	return i%stride == stride-1 && i/stride < o.SlowHPAs
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
