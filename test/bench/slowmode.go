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
	"fmt"
	"slices"
	"strings"
	"time"
)

// SlowTenantsMode is how the slow tenants' metrics provider misbehaves
// (slowtenants.go). Each mode is a scenario of its own.
type SlowTenantsMode string

const (
	// SlowModeDelay answers every fetch of a slow metric after
	// Options.SlowDelay, from the workload's creation on.
	SlowModeDelay SlowTenantsMode = "delay"
	// SlowModeMidRun answers fast until the steady window starts, then
	// hangs: a provider that breaks while the controller runs, after it
	// has learnt that every HPA is fast.
	SlowModeMidRun SlowTenantsMode = "mid-run"
	// SlowModeFlap answers fast until the steady window starts, then
	// alternates between fast errors and hangs every Options.FlapPeriod:
	// a provider whose failures keep changing their shape.
	SlowModeFlap SlowTenantsMode = "flap"
)

// slowTenantsModes are the modes, in the order a run measures them.
var slowTenantsModes = []SlowTenantsMode{SlowModeDelay, SlowModeMidRun, SlowModeFlap}

// The adapter's faults (test/metrics-adapter/adapter/fault.go) the
// failing modes play.
const (
	faultError = "error"
	faultHang  = "hang"
)

// ParseSlowTenantsModes reads a comma-separated list of modes.
func ParseSlowTenantsModes(s string) ([]SlowTenantsMode, error) {
	var modes []SlowTenantsMode
	for _, field := range strings.Split(s, ",") {
		m := SlowTenantsMode(strings.TrimSpace(field))
		if !slices.Contains(slowTenantsModes, m) {
			return nil, fmt.Errorf("slow tenants mode %q: want one of %s", m, FormatSlowTenantsModes(slowTenantsModes))
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("slow tenants mode %q given twice", m)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// FormatSlowTenantsModes writes modes as ParseSlowTenantsModes reads them.
func FormatSlowTenantsModes(modes []SlowTenantsMode) string {
	fields := make([]string, len(modes))
	for i, m := range modes {
		fields[i] = string(m)
	}
	return strings.Join(fields, ",")
}

// failsMidRun says whether the slow metric starts failing at the steady
// window: then the slow HPAs get a fallback, and the healthy ones'
// latency is measured before and after.
func (m SlowTenantsMode) failsMidRun() bool { return m == SlowModeMidRun || m == SlowModeFlap }

// scenarioName is the scenario of mode m: the delay mode keeps the name
// its results had before there were other modes.
func (m SlowTenantsMode) scenarioName() string {
	if m == SlowModeDelay || m == "" {
		return ScenarioSlowTenants
	}
	return ScenarioSlowTenants + "-" + string(m)
}

// isSlowTenantsScenario says whether a scenario is one of the modes'.
func isSlowTenantsScenario(name string) bool {
	return name == ScenarioSlowTenants || strings.HasPrefix(name, ScenarioSlowTenants+"-")
}

// slowMetricPrefix is what the slow metric's ConfigMap value holds before
// its series when the workload is created: the delay mode's delay;
// nothing in the failing modes, which answer fast until the window.
func slowMetricPrefix(o Options) string {
	if o.SlowMode.failsMidRun() {
		return ""
	}
	return "delay: " + o.SlowDelay.String() + "\n"
}

// withFault has a metric's ConfigMap value play fault instead of
// answering its series; no fault leaves it as it is.
func withFault(value, fault string) string {
	if fault == "" {
		return value
	}
	return "fault: " + fault + "\n" + value
}

// flapAt is the flap mode's schedule: the fault due at now, for a
// provider that began failing at start and changes every period, fast
// errors first (the controller sees a failure at the HPA's next pass,
// not a fetch budget later), and when the next change is due.
func flapAt(start, now time.Time, period time.Duration) (fault string, next time.Time) {
	step := int64(0)
	if now.After(start) {
		step = int64(now.Sub(start) / period)
	}
	fault = faultError
	if step%2 == 1 {
		fault = faultHang
	}
	return fault, start.Add(time.Duration(step+1) * period)
}

// flapPeriod resolves the zero default of Options.FlapPeriod: one sync
// period, so that each slow HPA's passes meet each fault in turn.
func (o Options) flapPeriod() time.Duration {
	if o.FlapPeriod > 0 {
		return o.FlapPeriod
	}
	return o.SyncPeriod
}
