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

// The scenarios of a run, one side-by-side table each. Each runs on a
// cluster of its own, so that no object, status or watch of one carries
// over into the next, and each has its own idle baseline.
const (
	// ScenarioDefault is the workload of Options as given, half of its
	// HPAs sharing metrics in groups, at client limits high enough that
	// no controller is throttled; the sync period mix follows it.
	ScenarioDefault = "default"
	// ScenarioDistinct gives every HPA a metric of its own: no fetch can
	// be shared, so the table shows what is left without sharing.
	ScenarioDistinct = "distinct-metrics"
	// ScenarioThrottled runs both controllers at kube-controller-manager's
	// default client limits, where a request made on every reconcile caps
	// the reconcile rate.
	ScenarioThrottled = "default-client-limits"
	// ScenarioThrottledShared is ScenarioThrottled on a workload whose
	// HPAs all share metrics in groups: the fetches fit the limit, so
	// only a per-reconcile scale read keeps a controller behind.
	ScenarioThrottledShared = "default-client-limits-shared"
	// ScenarioSlowTenants gives every HPA a metric of its own, a few of
	// them answered only after a long delay (slowtenants.go): how many
	// healthy HPAs a controller still reconciles each period. The other
	// modes of the slow provider are scenarios named after it and the
	// mode (SlowTenantsMode.scenarioName).
	ScenarioSlowTenants = "slow-tenants"
	// ScenarioCPU has every HPA scale on its pods' CPU utilization,
	// through metrics-server (cpu.go): the HPA most clusters run.
	ScenarioCPU = "cpu-utilization"
	// ScenarioScaling is the default workload at growing sizes, with
	// several pods per Deployment (scaling.go): how memory and CPU grow
	// with the HPAs.
	ScenarioScaling = "scaling"
)

// scenario is one table: its name and the Options its run uses.
type scenario struct {
	name string
	opts Options
}

// scenarios derives each scenario's Options from o, the default first
// unless it is left out. The ramp is not among them: its workload is a
// handful of Deployments of its own (ramp.go); nor are the sizes of the
// scaling scenario, which go on past a size that fails
// (Options.scalingScenarios).
func (o Options) scenarios() []scenario {
	base := o.defaultWorkload()
	var out []scenario
	if o.DefaultScenario {
		out = append(out, scenario{name: ScenarioDefault, opts: base})
	}
	// The mix is a study of kube-hpa's own features on the default
	// workload; the other scenarios compare the two controllers only.
	extra := base
	extra.SyncPeriodMix = false
	if o.DistinctHPAs > 0 {
		d := extra
		d.HPAs, d.DistinctMetrics = o.DistinctHPAs, true
		// Every pass over an HPA is one fetch of its metric: the
		// adapter's fetch times are its passes.
		d.FetchTimes = true
		out = append(out, scenario{name: ScenarioDistinct, opts: d})
	}
	if o.ThrottledHPAs > 0 {
		out = append(out, scenario{name: ScenarioThrottled, opts: o.throttled(extra, o.ThrottledHPAs)})
	}
	if o.ThrottledSharedHPAs > 0 {
		t := o.throttled(extra, o.ThrottledSharedHPAs)
		t.AllShared = true
		out = append(out, scenario{name: ScenarioThrottledShared, opts: t})
	}
	if o.CPUHPAs > 0 {
		c := extra
		c.HPAs, c.CPUUtilization = o.CPUHPAs, true
		out = append(out, scenario{name: ScenarioCPU, opts: c})
	}
	if o.SlowTenants {
		for _, mode := range o.SlowTenantModes {
			out = append(out, scenario{name: mode.scenarioName(), opts: o.slowTenants(extra, mode)})
		}
	}
	return out
}

// defaultWorkload is o with no scenario but the default: what each
// scenario's Options start from, so that none nests another.
func (o Options) defaultWorkload() Options {
	base := o
	base.DistinctHPAs, base.ThrottledHPAs, base.ThrottledSharedHPAs, base.CPUHPAs = 0, 0, 0, 0
	base.SlowTenants, base.Ramp, base.DefaultScenario, base.Scaling = false, false, true, false
	return base
}

// throttled is extra at the throttled scenarios' client limits and
// windows, with hpas HPAs.
func (o Options) throttled(extra Options, hpas int) Options {
	t := extra
	t.HPAs, t.QPS, t.Burst = hpas, o.ThrottledQPS, o.ThrottledBurst
	t.WarmUpLimit, t.Window = o.ThrottledWarmUpLimit, o.ThrottledWindow
	// What this table asks is whether a controller keeps up at all: the
	// steady window answers it. A latency phase would time metric changes
	// behind a backlog of minutes, and saturation is the client limit's,
	// not the controller's.
	t.SkipLatency, t.SkipSaturation = true, true
	return t
}

// ScenarioResult is one scenario's table.
type ScenarioResult struct {
	Name  string `json:"name"`
	Setup Setup  `json:"setup"`
	// Baseline is the idle cluster, no HPA controller running: what is
	// subtracted from each controller's API requests.
	Baseline    Phase              `json:"baseline"`
	Controllers []ControllerResult `json:"controllers"`
	// WorkloadReadySeconds is how long the workload took on the new
	// cluster, from its first object until every Deployment had its ready
	// pods and the metrics adapter served.
	WorkloadReadySeconds float64 `json:"workloadReadySeconds,omitempty"`
}
