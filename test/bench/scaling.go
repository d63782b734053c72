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
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

// The scaling scenario: the default workload (half of the HPAs sharing
// external metrics in groups, the other half with a metric of their own,
// the latency HPAs first) at growing sizes, each Deployment with several
// kwok pods, each size on a cluster of its own. Each controller in turn
// runs the steady window and the latency phase there, as in the default
// scenario, without the saturation: what the table asks is how a
// controller's memory and CPU per reconcile grow with the HPAs and their
// pods, and whether it still passes over every HPA each period.
//
// A size that cannot be set up (the machine out of memory, a workload
// that does not settle in time) records what stopped it, and the larger
// sizes are not tried; a controller that fails at a size is recorded
// there, and the next one measured (Options.RecordControllerErrors).

// The cluster's own kube-controller-manager and kube-scheduler for the
// scaling sizes: client limits that do not hold back the creation of
// 50,000 pods (two cores serve a few hundred writes a second, well below
// them), and twenty Deployment and ReplicaSet workers, each of which waits
// on its creates in turn.
const (
	scalingClusterQPS   = 1000
	scalingClusterBurst = 2000
	scalingClusterSyncs = 20
)

// ScalingResult is the scaling scenario: one table per size, in the order
// of Options.ScalingSizes.
type ScalingResult struct {
	PodsPerHPA int           `json:"podsPerHPA"`
	Sizes      []ScalingSize `json:"sizes"`
}

// ScalingSize is one size of the scaling scenario: its table (Setup.HPAs
// is the size), and what kept it from being measured, if anything.
type ScalingSize struct {
	ScenarioResult
	Pods int `json:"pods"`
	// Error says what stopped the size before or while its controllers
	// were measured: its workload not settling in time, a component
	// killed for want of memory; or, for a size not tried, which smaller
	// size failed. A controller that failed alone has its own
	// ControllerResult.Error instead.
	Error string `json:"error,omitempty"`
}

// ParseSizes reads the comma-separated HPA counts of -scaling-sizes.
func ParseSizes(s string) ([]int, error) {
	var sizes []int
	for _, field := range strings.Split(s, ",") {
		field = strings.TrimSpace(field)
		n, err := strconv.Atoi(field)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("scaling sizes must be positive whole numbers separated by commas, got %q in %q", field, s)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// FormatSizes writes sizes as ParseSizes reads them.
func FormatSizes(sizes []int) string {
	fields := make([]string, len(sizes))
	for i, n := range sizes {
		fields[i] = strconv.Itoa(n)
	}
	return strings.Join(fields, ",")
}

// validateScaling reports what keeps the scaling scenario from running.
// The sizes are ascending: the growth between two consecutive ones is a
// figure of the table, and a size that fails stops the larger ones.
func (o Options) validateScaling() []error {
	var errs []error
	if o.ScalingPodsPerHPA < 1 {
		errs = append(errs, fmt.Errorf("scaling-pods-per-hpa must be at least 1, got %d", o.ScalingPodsPerHPA))
	}
	if len(o.ScalingSizes) == 0 {
		errs = append(errs, errors.New("scaling-sizes must list at least one size"))
	}
	if o.ScalingNamespaces < 0 || len(o.ScalingSizes) > 0 && o.ScalingNamespaces > o.ScalingSizes[0] {
		errs = append(errs, fmt.Errorf("scaling-namespaces must be from 0 to the smallest size, got %d", o.ScalingNamespaces))
	}
	for _, n := range o.ScalingReplicas {
		if n < 2 || n > maxScalingReplicas {
			errs = append(errs, fmt.Errorf("scaling-replicas must be from 2 to %d, got %d", maxScalingReplicas, n))
		}
	}
	for i, n := range o.ScalingSizes {
		if n < max(1, o.LatencyHPAs) {
			errs = append(errs, fmt.Errorf("every scaling size must be at least 1 and at least latency-hpas (%d), got %d", o.LatencyHPAs, n))
		}
		if i > 0 && n <= o.ScalingSizes[i-1] {
			errs = append(errs, fmt.Errorf("scaling-sizes must be ascending, got %s", FormatSizes(o.ScalingSizes)))
			break
		}
	}
	return errs
}

// maxScalingReplicas is the most sharded replicas the scenario runs: as
// many as there are shards (scalingShards), beyond which a replica idles.
const maxScalingReplicas = scalingShards

// scalingShards is --shards of the sharded replicas.
const scalingShards = 16

// scalingWarmUpLimit bounds the wait for a first pass over hpas HPAs:
// two minutes, and 30 ms more per HPA, after which the controller is
// measured anyway, the table saying how far it got. The first pass writes
// every HPA's status, about 25 ms of the API server's time each on two
// cores: with 10 ms per HPA the 10,000-HPA size measured a first pass
// still under way. (A controller that lists every pod of the namespace on
// each reconcile never gets there at that size, and waits the whole
// limit.)
func scalingWarmUpLimit(hpas int) time.Duration {
	return 2*time.Minute + time.Duration(hpas)*30*time.Millisecond
}

// scalingScenarios derives the Options of each size from o: the default
// workload at that size, ScalingPodsPerHPA pods per Deployment, the
// steady window and the latency phase (unless -skip-latency), the
// cluster's own controllers fast enough for the pods, and a controller
// that fails recorded rather than ending the size.
func (o Options) scalingScenarios() []scenario {
	base := o.defaultWorkload()
	base.SyncPeriodMix = false
	base.PodsPerHPA = o.ScalingPodsPerHPA
	base.Namespaces = o.ScalingNamespaces
	base.SkipSaturation = true
	base.ClusterClientQPS, base.ClusterClientBurst, base.ClusterWorkloadSyncs = scalingClusterQPS, scalingClusterBurst, scalingClusterSyncs
	base.RecordControllerErrors = true
	base.Controllers = slices.Clone(o.Controllers)
	for _, n := range o.ScalingReplicas {
		base.Controllers = append(base.Controllers, ShardedKubeHPA(n))
	}
	out := make([]scenario, 0, len(o.ScalingSizes))
	for _, n := range o.ScalingSizes {
		s := base
		s.HPAs, s.WarmUpLimit = n, scalingWarmUpLimit(n)
		out = append(out, scenario{name: ScenarioScaling, opts: s})
	}
	return out
}

// runScaling measures each size on a cluster of its own, its logs under
// dir/<size>-hpas, and hands the result so far to checkpoint after each.
// A size that fails is recorded with what stopped it, and the larger ones
// are not tried; the result always holds every size. Only ctx's end is
// returned as an error.
func runScaling(ctx context.Context, o Options, dir string, checkpoint func(*ScalingResult)) (*ScalingResult, error) {
	logger := klog.FromContext(ctx)
	res := &ScalingResult{PodsPerHPA: o.ScalingPodsPerHPA}
	var stoppedBy string
	for _, sc := range o.scalingScenarios() {
		so := sc.opts
		size := ScalingSize{ScenarioResult: ScenarioResult{Name: sc.name, Setup: so.setup()}, Pods: so.workloadPods()}
		if stoppedBy != "" {
			size.Error = "not tried: " + stoppedBy
			res.Sizes = append(res.Sizes, size)
			continue
		}
		logger.Info("Measuring a scaling size", "hpas", so.HPAs, "pods", size.Pods)
		kills, killsErr := oomKills()
		sr, _, err := runScenario(ctx, sc, filepath.Join(dir, fmt.Sprintf("%d-hpas", so.HPAs)))
		var killed int64
		if now, nowErr := oomKills(); killsErr == nil && nowErr == nil {
			killed = now - kills
		}
		size.ScenarioResult = sr
		size.Error = describeLimit(err, killed)
		for i := range size.Controllers {
			if c := &size.Controllers[i]; c.Error != "" {
				c.Error = describeLimit(errors.New(c.Error), killed)
				logger.Info("A controller did not fit", "hpas", so.HPAs, "controller", c.Name, "err", c.Error)
			}
		}
		res.Sizes = append(res.Sizes, size)
		checkpoint(res)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil {
			logger.Error(err, "A scaling size did not fit; the larger ones are not tried", "hpas", so.HPAs)
			stoppedBy = fmt.Sprintf("%d HPAs did not fit", so.HPAs)
		}
	}
	return res, nil
}

// describeLimit words what stopped a size or a controller, err, adding
// the processes the kernel's out-of-memory killer killed during the size
// when it did: the usual end of a size too large for the machine is a
// component or a controller killed, which err shows only as "signal:
// killed".
func describeLimit(err error, oomKilled int64) string {
	switch {
	case err == nil:
		return ""
	case oomKilled > 0:
		return fmt.Sprintf("out of memory: the kernel killed %d processes during this size; %v", oomKilled, err)
	}
	return err.Error()
}

// scalingControllers are the controllers of any size, in the order they
// were measured.
func scalingControllers(res *ScalingResult) []string {
	var names []string
	for _, size := range res.Sizes {
		for _, c := range size.Controllers {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	return names
}
