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
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
)

// mapperResetPeriod is how often the discovery-backed REST mapper forgets
// what it learned, so that new scalable kinds are picked up.
const mapperResetPeriod = 30 * time.Second

// processShared is what every HPA controller of the process shares, the
// leader's only one or a sharded replica's one per shard: one metrics
// client, whose --horizontal-pod-autoscaler-metrics-api-qps and -burst are
// the process's, one event broadcaster, the REST mapper's reset loop and,
// when sharded, one bound on the passes under way.
type processShared struct {
	metrics  metrics.Client
	recorder record.EventRecorder
	// workerLimit makes --concurrent-horizontal-pod-autoscaler-syncs the
	// process's total across the shards' controllers; nil for the
	// leader's single controller, whose workers are that many already.
	workerLimit *podautoscaler.WorkerLimit
	// events fences the events of each shard's namespaces with that
	// shard's run; nil when not sharded.
	events *eventFence
}

// startShared builds what the controllers share and runs its loops until
// ctx ends; stop flushes the events once the controllers have stopped.
// workerLimit and events are nil for the leader's single controller.
func startShared(ctx context.Context, cfg *config.Config, c *clients, workerLimit *podautoscaler.WorkerLimit, events *eventFence) (processShared, func(), error) {
	realClock := clock.RealClock{}
	metricsClient, err := newMetricsClient(cfg, realClock)
	if err != nil {
		return processShared{}, nil, err
	}
	recorder, stopEvents, err := podautoscaler.NewEventRecorder(ctx, events.events(ctx, c.kube.CoreV1()))
	if err != nil {
		return processShared{}, nil, err
	}
	go metricsClient.Run(ctx)
	go wait.UntilWithContext(ctx, func(context.Context) { c.mapper.Reset() }, mapperResetPeriod)
	return processShared{
		// Shared answers are keyed by namespace, so the shards'
		// controllers never share one across a shard's boundary.
		metrics:     metrics.NewSharedExternal(metricsClient, sharingWindow(cfg.HPA), realClock),
		recorder:    recorder,
		workerLimit: workerLimit,
		events:      events,
	}, stopEvents, nil
}
