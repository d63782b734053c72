package app

import (
	"context"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
)

// runSharded takes part in the group of sharded replicas until ctx ends:
// it holds a fair share of the shards through their Leases and runs the
// controllers on the namespaces of those it holds, restarted on each change
// (informers carry one selector for their whole life). As after a restart,
// whatever a pass needs from before a handover is in status.
func runSharded(ctx context.Context, cfg *config.Config, c *clients, registry metrics.KubeRegistry, mon monitor.Monitor, health *healthState) error {
	hostname, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("getting hostname for the shard identity: %w", err)
	}
	suffix := string(uuid.NewUUID())
	held := newShardsHeldGauge(registry)
	honored := newSelectorHonoredGauge(registry)
	le := cfg.LeaderElection
	manager, err := shardlease.New(shardlease.Options{
		Client:        c.kube.CoordinationV1(),
		Namespace:     le.ResourceNamespace,
		Group:         le.ResourceName,
		Identity:      hostname + "_" + suffix,
		MemberSuffix:  suffix,
		Shards:        cfg.Sharding.Shards,
		LeaseDuration: le.LeaseDuration.Duration,
		RenewDeadline: le.RenewDeadline.Duration,
		RetryPeriod:   le.RetryPeriod.Duration,
		OnHeld:        func(owned []int) { held.Set(float64(len(owned))) },
		Work: func(ctx context.Context, owned []int) error {
			sc, err := scopeOf(cfg.Sharding.Shards, owned)
			if err != nil {
				return err
			}
			ctx = klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "shards", owned))
			checkSelector(ctx, c.kube, sc, honored)
			return runControllers(ctx, cfg, c, mon, health, sc)
		},
	})
	if err != nil {
		return fmt.Errorf("sharding: %w", err)
	}
	klog.FromContext(ctx).Info("Running sharded", "shards", cfg.Sharding.Shards, "group", le.ResourceName, "namespace", le.ResourceNamespace)
	return manager.Run(ctx)
}

// newShardsHeldGauge registers the count of shards this replica works.
func newShardsHeldGauge(registry metrics.KubeRegistry) *metrics.Gauge {
	g := metrics.NewGauge(&metrics.GaugeOpts{
		Subsystem:      "horizontal_pod_autoscaler_controller",
		Name:           "shards_held",
		StabilityLevel: metrics.ALPHA,
		Help:           "With --sharded, the number of shards (ranges of the namespace hash) whose HPAs this replica runs.",
	})
	registry.MustRegister(g)
	return g
}
