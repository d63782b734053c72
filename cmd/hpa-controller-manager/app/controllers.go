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
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/scalecache"
)

// runControllers runs the HPA controller on every HPA until ctx ends: what
// the leader does. mon outlives a run, since its metrics are registered
// once per process.
func runControllers(ctx context.Context, cfg *config.Config, c *clients, mon monitor.Monitor, health *healthState, sc scope) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	shared, stop, err := startShared(ctx, cfg, c, nil, nil)
	if err != nil {
		return err
	}
	defer stop()
	return runScope(ctx, cfg, c, mon, health, shared, sc)
}

// runScope runs one HPA controller on the HPAs of sc until ctx ends, with
// informers of its own carrying sc's selector: the leader's only one, or a
// sharded replica's one per shard it works, each started and stopped with
// its shard. What the process shares (shared) is not its to stop.
func runScope(ctx context.Context, cfg *config.Config, c *clients, mon monitor.Monitor, health *healthState, shared processShared, sc scope) error {
	run, endRun := health.startRun()
	defer endRun()
	realClock := clock.RealClock{}
	own := newScopeInformers(c, sc)
	crdInformer := own.crd
	sources := []podautoscaler.HPASource{hpaclient.NewSource(c.hpa, crdInformer)}
	hpaInformers := []cache.SharedIndexInformer{crdInformer}
	// Native HPAs are watched even when not managed, read-only: a target
	// that one of them (or a KEDA ScaledObject, through the one it owns)
	// scales is not scaled by a kube-hpa HPA as well (the ownership guard).
	native := own.native
	var observed []podautoscaler.ObservedAutoscalers
	if cfg.ManageNativeHPAs {
		sources = append(sources, hpaclient.NewNativeSource(c.kube.AutoscalingV2(), native))
		hpaInformers = append(hpaInformers, native)
	} else {
		if err := native.SetTransform(hpaclient.DropManagedFields); err != nil {
			return fmt.Errorf("trimming the native HPA informer's objects: %w", err)
		}
		observed = append(observed, podautoscaler.ObservedAutoscalers{Name: "autoscaling/v2", Informer: native})
	}
	var hpaStores []cache.Store
	for _, informer := range hpaInformers {
		if err := informer.SetTransform(hpaclient.DropManagedFields); err != nil {
			return fmt.Errorf("trimming the HPA informers' objects: %w", err)
		}
		hpaStores = append(hpaStores, informer.GetStore())
	}
	// The controller makes the pod informer keep records (podrecord).
	pods := own.pods
	scales := newScaleSource(cfg, c, targetedKinds(hpaStores...), sc)
	controller, err := podautoscaler.New(podautoscaler.Options{
		Sources:                      sources,
		PodInformer:                  pods,
		ScaleClient:                  scales,
		Mapper:                       c.mapper,
		MetricsClient:                shared.metrics,
		EventRecorder:                shared.recorder,
		Monitor:                      mon,
		Clock:                        realClock,
		Gates:                        cfg.FeatureGates,
		SyncPeriod:                   cfg.HPA.SyncPeriod,
		Tolerance:                    cfg.HPA.Tolerance,
		DownscaleStabilizationWindow: cfg.HPA.DownscaleStabilizationWindow,
		CPUInitializationPeriod:      cfg.HPA.CPUInitializationPeriod,
		InitialReadinessDelay:        cfg.HPA.InitialReadinessDelay,
		SpreadReconciles:             cfg.HPA.SpreadReconciles,
		InScope:                      sc.inScope(),
		Fence:                        sc.fence,
		WorkerLimit:                  shared.workerLimit,
		Observed:                     observed,
	})
	if err != nil {
		return err
	}

	own.factory.Start(ctx.Done())
	defer own.factory.Shutdown()
	stopScales := scales.start(ctx)
	defer stopScales()
	go crdInformer.RunWithContext(ctx)
	run.setSynced(func() bool { return controller.HasSynced() && scales.hasSynced() })
	defer sc.counter.serve(sc.shard, hpaStores, controller.HasSynced)()
	run.setStalled(func() error { return controller.Stalled(stallPeriods * cfg.HPA.SyncPeriod) })

	controller.Run(ctx, cfg.HPA.ConcurrentSyncs)
	return nil
}

// newMetricsClient reads the metrics APIs in the content type of
// --kube-api-content-type, as kube-controller-manager does: their adapters
// (metrics-server, and those built on custom-metrics-apiserver) serve
// protobuf, and the Accept header keeps JSON for any that does not.
func newMetricsClient(cfg *config.Config, clk clock.WithTicker) (*metrics.RESTClient, error) {
	client, err := metrics.NewRESTClient(metrics.Options{
		Config:       cfg.RESTConfig,
		FetchTimeout: cfg.HPA.MetricFetchTimeout,
		QPS:          cfg.HPA.MetricsAPIQPS,
		Burst:        cfg.HPA.MetricsAPIBurst,
		Clock:        clk,
	})
	if err != nil {
		return nil, fmt.Errorf("building the metrics clients: %w", err)
	}
	return client, nil
}

// scaleSource is where the controller reads scales: the API, or with
// --horizontal-pod-autoscaler-scale-from-watch a cache fed by stripped
// watches of its own of the kinds the HPAs target, which start runs.
type scaleSource struct {
	scale.ScalesGetter
	// cache is nil when every scale is read from the API.
	cache *scalecache.Cache
}

func newScaleSource(cfg *config.Config, c *clients, targeted func() sets.Set[schema.GroupResource], sc scope) scaleSource {
	if !cfg.HPA.ScaleFromWatch {
		return scaleSource{ScalesGetter: c.scale}
	}
	watched := scalecache.New(scalecache.Options{Client: c.scale, Kube: c.kube, Targeted: targeted, TweakListOptions: sc.tweak, InScope: sc.inScope()})
	return scaleSource{ScalesGetter: watched, cache: watched}
}

// start runs the cache until ctx ends; the returned func waits for its
// watches to stop.
func (s scaleSource) start(ctx context.Context) (stop func()) {
	if s.cache == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.cache.Run(ctx)
	}()
	return func() { <-done }
}

// hasSynced reports whether the cache, if any, has synced: until then it
// reads from the API, correct but at the cost the cache saves.
func (s scaleSource) hasSynced() bool { return s.cache == nil || s.cache.HasSynced() }

// sharingWindow caps the external metric sharing window at the sync
// period: a shared answer older than one period would make an HPA act on a
// value its own next pass would have refreshed.
func sharingWindow(hpa config.HPA) time.Duration {
	return min(hpa.ExternalMetricSharingWindow, hpa.SyncPeriod)
}
