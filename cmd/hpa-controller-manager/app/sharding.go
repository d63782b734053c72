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

package app

import (
	"context"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
)

// runSharded takes part in the group of sharded replicas until ctx ends:
// it holds a fair share of the shards through their Leases and runs one
// controller per shard held, with informers of its own (they carry one
// selector for their whole life), started when the shard is acquired and
// stopped when it is given away or fenced, while the other shards'
// controllers go on: a rebalance neither relists nor interrupts the shards
// kept, and each keeps its HPAs' behavior history. What a pass needs from
// before a handover is in status, as after a restart.
func runSharded(ctx context.Context, cfg *config.Config, c *clients, registry metrics.KubeRegistry, mon monitor.Monitor, health *healthState) error {
	hostname, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("getting hostname for the shard identity: %w", err)
	}
	suffix := string(uuid.NewUUID())
	held := newShardsHeldGauge(registry)
	// The series of HPAs whose shard moved away go with it.
	scoped := monitor.NewScoped(mon)
	honored := newSelectorHonoredGauge(registry)
	counter := &hpaCounter{shards: cfg.Sharding.Shards}
	// One broadcaster sends every shard's events, each only while its
	// shard's run may write.
	events := newEventFence(cfg.Sharding.Shards)
	// --concurrent-horizontal-pod-autoscaler-syncs bounds the process's
	// passes, whatever the number of shards it works.
	workers := podautoscaler.NewWorkerLimit(cfg.HPA.ConcurrentSyncs)
	shared, stopShared, err := startShared(ctx, cfg, c, workers, events)
	if err != nil {
		return err
	}
	// Flushed once the Manager has stopped every shard's controller.
	defer stopShared()

	le := cfg.LeaderElection
	leases, err := newLeaseClient(cfg)
	if err != nil {
		return err
	}
	manager, err := shardlease.New(shardlease.Options{
		Client:        leases,
		Namespace:     le.ResourceNamespace,
		Group:         le.ResourceName,
		Identity:      hostname + "_" + suffix,
		MemberSuffix:  suffix,
		Shards:        cfg.Sharding.Shards,
		LeaseDuration: le.LeaseDuration.Duration,
		RenewDeadline: le.RenewDeadline.Duration,
		RetryPeriod:   le.RetryPeriod.Duration,
		OnHeld: func(owned []int) {
			held.Set(float64(len(owned)))
			scoped.DropOutside(keepOnly(cfg.Sharding.Shards, owned))
		},
		Count: counter.count,
		Work: func(ctx context.Context, shard int) error {
			sc, err := scopeOf(cfg.Sharding.Shards, []int{shard})
			if err != nil {
				return err
			}
			sc.shard = shard
			sc.counter = counter
			sc.fence = leaseFence{inScope: sc.inScope()}
			defer events.register(shard, ctx)()
			ctx = klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "shard", shard))
			checkSelector(ctx, c.kube, sc, honored)
			return runScope(ctx, cfg, c, scoped, health, shared, sc)
		},
	})
	if err != nil {
		return fmt.Errorf("sharding: %w", err)
	}
	klog.FromContext(ctx).Info("Running sharded", "shards", cfg.Sharding.Shards, "group", le.ResourceName, "namespace", le.ResourceNamespace)
	return manager.Run(ctx)
}

// leaseFence lets a pass write only while the run it belongs to still
// holds its shards (shardlease.Check) and only in their namespaces.
type leaseFence struct {
	inScope func(string) bool
}

func (f leaseFence) Allow(ctx context.Context, namespace string) error {
	if f.inScope != nil && !f.inScope(namespace) {
		return fmt.Errorf("%w: namespace %q is outside the shards held", shardlease.ErrFenced, namespace)
	}
	return shardlease.Check(ctx)
}

// keepOnly is the namespace filter of the shards owned, for dropping the
// series of the others.
func keepOnly(shards int, owned []int) func(string) bool {
	if len(owned) == 0 {
		return func(string) bool { return false }
	}
	sc, err := scopeOf(shards, owned)
	if err != nil {
		// Owned comes from the shard manager, within 0..shards-1.
		return nil
	}
	return sc.inScope()
}

// newLeaseClient returns the client of the shard Leases, with a rate limit
// of its own: a round renews every held shard, and behind the controllers'
// requests under --kube-api-qps a renewal would wait, and the replica fence
// itself, for no fault of the API server. The limit allows two rounds a
// retry period, each a list, the member Lease and a write per shard.
func newLeaseClient(cfg *config.Config) (coordinationv1.LeasesGetter, error) {
	rc := rest.CopyConfig(cfg.RESTConfig)
	perRound := cfg.Sharding.Shards + 2
	rc.QPS = float32(2*perRound) / float32(cfg.LeaderElection.RetryPeriod.Seconds())
	rc.Burst = 2 * perRound
	rc.RateLimiter = nil
	rc.UserAgent = cfg.RESTConfig.UserAgent + "/shard-leases"
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("building the shard lease client: %w", err)
	}
	return client.CoordinationV1(), nil
}

// newShardGauge registers one of the gauges of --sharded: shards_held, the
// shards (ranges of the namespace hash) whose HPAs this replica runs, and
// shard_selector_honored, 1 when the API server applied this replica's
// shard selector at the last check, 0 when it ignored it and the replica
// filters what it receives.
func newShardGauge(registry metrics.KubeRegistry, name, help string) *metrics.Gauge {
	g := metrics.NewGauge(&metrics.GaugeOpts{
		Subsystem:      "horizontal_pod_autoscaler_controller",
		Name:           name,
		StabilityLevel: metrics.ALPHA,
		Help:           help,
	})
	registry.MustRegister(g)
	return g
}

func newShardsHeldGauge(registry metrics.KubeRegistry) *metrics.Gauge {
	return newShardGauge(registry, "shards_held",
		"With --sharded, the number of shards (ranges of the namespace hash) whose HPAs this replica runs.")
}

func newSelectorHonoredGauge(registry metrics.KubeRegistry) *metrics.Gauge {
	return newShardGauge(registry, "shard_selector_honored",
		"With --sharded, 1 when the API server applied this replica's shard selector (ShardedListAndWatch on), 0 when it ignored it and the replica filters its lists and watches itself.")
}
