package app

import (
	"context"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// runWithLeaderElection runs lead while this replica holds the Lease. On
// shutdown the lease is released, so that the other replica takes over at
// once instead of after the lease duration.
func runWithLeaderElection(ctx context.Context, cfg *config.Config, clients *clients, registry metrics.KubeRegistry, lead func(context.Context) error) error {
	logger := klog.FromContext(ctx)
	leading := newLeaderGauge(registry)
	hostname, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("getting hostname for the leader election identity: %w", err)
	}
	id := hostname + "_" + string(uuid.NewUUID())
	le := cfg.LeaderElection
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.ResourceNamespace, Name: le.ResourceName},
		Client:     clients.kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	var leadErr error
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration.Duration,
		RenewDeadline:   le.RenewDeadline.Duration,
		RetryPeriod:     le.RetryPeriod.Duration,
		ReleaseOnCancel: true,
		Name:            le.ResourceName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				logger.Info("Became leader", "identity", id)
				leading.WithLabelValues(le.ResourceName).Set(1)
				leadErr = lead(ctx)
			},
			OnStoppedLeading: func() {
				logger.Info("Stopped leading", "identity", id)
				leading.WithLabelValues(le.ResourceName).Set(0)
			},
			OnNewLeader: func(identity string) {
				if identity != id {
					logger.Info("New leader elected", "leader", identity)
				}
			},
		},
	})
	if ctx.Err() == nil && leadErr == nil {
		// Losing the lease without being asked to stop: exit so that a
		// restart starts from a clean state, as kube-controller-manager does.
		return fmt.Errorf("leader election lost")
	}
	return leadErr
}

// newLeaderGauge registers kube-controller-manager's leader gauge: 1 while
// this replica holds the lease, which is how a probe or a test tells the
// leader from the standby.
func newLeaderGauge(registry metrics.KubeRegistry) *metrics.GaugeVec {
	g := metrics.NewGaugeVec(&metrics.GaugeOpts{
		Name:           "leader_election_master_status",
		StabilityLevel: metrics.ALPHA,
		Help:           "1 while this replica holds the named lease, 0 otherwise.",
	}, []string{"name"})
	registry.MustRegister(g)
	return g
}
