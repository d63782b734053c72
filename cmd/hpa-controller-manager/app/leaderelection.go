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
	"errors"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// runWithLeaderElection runs lead while this replica holds the Lease. On
// shutdown the lease is released, so that the other replica takes over at
// once instead of after the lease duration. It returns, and the process
// exits non-zero as kube-controller-manager's does, when the lease is lost
// or when lead returns while leading (the controllers could not start, or
// stopped): a replica that holds the lease and does nothing would keep
// every HPA of the cluster unserved.
func runWithLeaderElection(ctx context.Context, cfg *config.Config, clients *clients, watchdog *leaderelection.HealthzAdaptor, lead func(context.Context) error) error {
	logger := klog.FromContext(ctx)
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
	electionCtx, stopElection := context.WithCancel(ctx)
	defer stopElection()
	// The leading callback runs in a goroutine of its own; its outcome comes
	// back here.
	ended := make(chan error, 1)
	leaderelection.RunOrDie(electionCtx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration.Duration,
		RenewDeadline:   le.RenewDeadline.Duration,
		RetryPeriod:     le.RetryPeriod.Duration,
		ReleaseOnCancel: true,
		// Name labels client-go's leader_election_master_status and
		// leader_election_slowpath_total (metrics.go), as
		// kube-controller-manager's.
		Name:     le.ResourceName,
		WatchDog: watchdog,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				logger.Info("Became leader", "identity", id)
				err := lead(ctx)
				if err == nil && ctx.Err() == nil {
					err = errors.New("the controllers stopped while this replica leads")
				}
				ended <- err
				stopElection()
			},
			OnStoppedLeading: func() {
				logger.Info("Stopped leading", "identity", id)
			},
			OnNewLeader: func(identity string) {
				if identity != id {
					logger.Info("New leader elected", "leader", identity)
				}
			},
		},
	})
	select {
	case err := <-ended:
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("leading: %w", err)
		}
	default:
	}
	if ctx.Err() == nil {
		// Losing the lease without being asked to stop: exit so that a
		// restart starts from a clean state, as kube-controller-manager does.
		return errors.New("leader election lost")
	}
	return nil
}
