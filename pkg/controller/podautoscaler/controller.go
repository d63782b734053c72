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

package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/calculator"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/fallback"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// HPASource is where the controller finds HPAs and writes their status. The
// CRD kind and native autoscaling/v2 each have one, so one controller loop
// (one queue, one view of which HPA selects which pods) serves both.
type HPASource interface {
	// Name tells the source's HPAs apart from another source's.
	Name() string
	// Informer delivers the add, update and delete events of the HPAs.
	Informer() cache.SharedIndexInformer
	// Get returns the cached HPA, shared with the cache (never modify it).
	Get(namespace, name string) (*v2.HorizontalPodAutoscaler, bool, error)
	// Latest reads the HPA from the API server, past the cache: what a
	// status write that conflicted is recorded over again.
	Latest(ctx context.Context, namespace, name string) (*v2.HorizontalPodAutoscaler, error)
	// UpdateStatus writes the status of hpa and returns the
	// resourceVersion the write produced.
	UpdateStatus(ctx context.Context, hpa *v2.HorizontalPodAutoscaler) (string, error)
	// EventObject is the object that events about hpa refer to.
	EventObject(hpa *v2.HorizontalPodAutoscaler) runtime.Object
	// SeenVersion is the resourceVersion up to which the informer's cache
	// has applied the API server's changes ("" when it cannot tell).
	SeenVersion() string
}

// Options are the dependencies and settings of a Controller. Every seam is
// an interface, so a test builds a controller from fakes. Every dependency
// must be set, except QueueMetrics.
type Options struct {
	// Sources are the kinds of HPA to reconcile; at least one.
	Sources       []HPASource
	PodInformer   coreinformers.PodInformer
	ScaleClient   scale.ScalesGetter
	Mapper        apimeta.RESTMapper
	MetricsClient metrics.Client
	EventRecorder record.EventRecorder
	Monitor       monitor.Monitor
	Clock         clock.WithTicker
	Gates         featuregate.FeatureGate
	// QueueMetrics, if set, provides the workqueue_* metrics of the
	// controller's queue; nil means client-go's global provider, which
	// the binary sets to component-base's, as kube-controller-manager does.
	QueueMetrics workqueue.MetricsProvider

	// SyncPeriod is how often each HPA is reconciled
	// (--horizontal-pod-autoscaler-sync-period), unless the HPA sets a
	// period of its own (spec.syncPeriodSeconds, with the
	// HPAConfigurableSyncPeriod gate on).
	SyncPeriod time.Duration
	// Tolerance is the global usage-ratio tolerance
	// (--horizontal-pod-autoscaler-tolerance).
	Tolerance float64
	// DownscaleStabilizationWindow (--horizontal-pod-autoscaler-downscale-stabilization).
	DownscaleStabilizationWindow time.Duration
	// CPUInitializationPeriod (--horizontal-pod-autoscaler-cpu-initialization-period).
	CPUInitializationPeriod time.Duration
	// InitialReadinessDelay (--horizontal-pod-autoscaler-initial-readiness-delay).
	InitialReadinessDelay time.Duration
	// SpreadReconciles (--horizontal-pod-autoscaler-spread-reconciles)
	// reconciles a new HPA at once and then each HPA at a stable offset
	// within its period, instead of all HPAs listed together one period
	// after their last pass (package cadence). Off is upstream's timing.
	SpreadReconciles bool
	// InScope, when set, limits the controller to the HPAs of the
	// namespaces it accepts: a sharded replica's namespaces. The HPAs of
	// others are never queued, so never read, scaled or written, whatever
	// the informers deliver. Nil accepts every namespace.
	InScope func(namespace string) bool
	// Fence, when set, is asked before every write of a pass; a sharded
	// replica's fence refuses once its shard may be another replica's.
	// Nil allows every write.
	Fence Fence
	// WorkerLimit, when set, bounds the workers that hold a pass at once
	// across every controller sharing it (workerlimit.go): a sharded
	// replica's controllers, one per shard. Nil: only Run's workers bound
	// this controller's passes.
	WorkerLimit *WorkerLimit
	// Observed are autoscalers this controller does not reconcile but whose
	// targets it must not scale as well: native HPAs (and so KEDA's
	// ScaledObjects, which own one) when --manage-native-hpas is off.
	Observed []ObservedAutoscalers
}

// ObservedAutoscalers is an informer of HPAs, of either kind, watched only
// to know which targets they own.
type ObservedAutoscalers struct {
	// Name is the kind as messages show it, such as autoscaling/v2.
	Name     string
	Informer cache.SharedIndexInformer
}

func (o *Options) validate() error {
	var errs []error
	if len(o.Sources) == 0 || slices.Contains(o.Sources, nil) || o.PodInformer == nil || o.ScaleClient == nil || o.Mapper == nil ||
		o.MetricsClient == nil || o.EventRecorder == nil || o.Monitor == nil || o.Clock == nil || o.Gates == nil {
		errs = append(errs, errors.New("every dependency of the HPA controller must be set"))
	}
	if o.SyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("sync period must be positive, got %v", o.SyncPeriod))
	}
	// NaN passes a "< 0" check and then makes every usage ratio fall
	// outside the tolerance.
	if !(o.Tolerance >= 0) {
		errs = append(errs, fmt.Errorf("tolerance must be a non-negative number, got %v", o.Tolerance))
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{
		{"downscale stabilization window", o.DownscaleStabilizationWindow},
		{"CPU initialization period", o.CPUInitializationPeriod},
		{"initial readiness delay", o.InitialReadinessDelay},
	} {
		if d.value < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %v", d.name, d.value))
		}
	}
	return errors.Join(errs...)
}

// Controller reconciles HPAs: it reads each target's scale, computes the
// replica count its metrics ask for, applies it and reports in status.
type Controller struct {
	opts       Options
	queue      workqueue.TypedRateLimitingInterface[hpaKey]
	podLister  podrecord.Lister
	synced     []cache.InformerSynced
	selectors  *selectorIndex
	calculator *calculator.Calculator
	behavior   *behavior.Store
	// rules say when each HPA is due (package cadence); schedule writes
	// their answers to the queue.
	rules cadence.Rules
	// passes remembers each HPA's last pass (pacing.go).
	passes *passLog
	// lane moves slow passes off the workers and bounds the workers
	// that hot flows hold (package cadence).
	lane *cadence.Lane[hpaKey]
	// inFlight are the passes under way, on a worker or in the slow lane.
	inFlight sync.WaitGroup
	// progress tells a liveness probe whether the workers move (progress.go).
	progress progress
	// consistency holds back passes over a cache older than the
	// controller's own status writes (consistency.go).
	consistency *writtenVersions
	// owners finds the other autoscalers of an HPA's target (ownership.go).
	owners autoscalerKinds
}

// New builds a Controller and registers its event handlers.
func New(opts Options) (*Controller, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	c := &Controller{
		opts: opts,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig[hpaKey](
			fixedIntervalLimiter{interval: opts.SyncPeriod},
			workqueue.TypedRateLimitingQueueConfig[hpaKey]{Name: "horizontalpodautoscaler", Clock: opts.Clock, MetricsProvider: opts.QueueMetrics},
		),
		podLister:   podrecord.NewLister(opts.PodInformer.Informer().GetIndexer()),
		synced:      []cache.InformerSynced{opts.PodInformer.Informer().HasSynced},
		selectors:   newSelectorIndex(),
		passes:      newPassLog(),
		consistency: newWrittenVersions(),
		behavior: behavior.NewStore(behavior.Options{
			Clock:                        opts.Clock,
			DownscaleStabilizationWindow: opts.DownscaleStabilizationWindow,
		}),
	}
	c.rules = cadence.Rules{
		Period:             opts.SyncPeriod,
		Spread:             opts.SpreadReconciles,
		ConfigurablePeriod: opts.Gates.Enabled(features.HPAConfigurableSyncPeriod),
		Generation:         opts.Gates.Enabled(features.HPAGeneration),
	}
	// Sized when the workers start (Run).
	c.lane = cadence.NewLane[hpaKey](1)
	c.calculator = calculator.New(calculator.Options{
		// Errors are marked where they come from: the fallback counts the
		// external provider's failures, the decision trace tells failed
		// fetches from unusable values. The decisions of one pass share
		// their answers (decide).
		MetricsClient:                 metrics.MarkFetchFailures(fallback.MarkProviderFailures(metrics.KeepAnswers(opts.MetricsClient))),
		PodLister:                     c.podLister,
		CPUInitializationPeriod:       opts.CPUInitializationPeriod,
		DelayOfInitialReadinessStatus: opts.InitialReadinessDelay,
		IgnorePodLevelResources:       !opts.Gates.Enabled(features.PodLevelResources),
		Clock:                         opts.Clock,
	})
	if err := c.watchPods(opts.PodInformer.Informer()); err != nil {
		return nil, fmt.Errorf("registering event handlers for pods: %w", err)
	}
	for _, o := range opts.Observed {
		if !slices.ContainsFunc(opts.Sources, func(s HPASource) bool { return s.Informer() == o.Informer }) {
			c.synced = append(c.synced, o.Informer.HasSynced)
		}
	}
	for i, source := range opts.Sources {
		_, err := source.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { c.onAdd(i, obj) },
			UpdateFunc: func(old, cur any) { c.onUpdate(i, old, cur) },
			DeleteFunc: func(obj any) { c.onDelete(i, obj) },
		})
		if err != nil {
			return nil, fmt.Errorf("registering event handlers for %s HPAs: %w", source.Name(), err)
		}
		c.synced = append(c.synced, source.Informer().HasSynced)
	}
	owners, err := newAutoscalerKinds(opts.Sources, opts.Observed)
	if err != nil {
		return nil, err
	}
	c.owners = owners
	return c, nil
}

// Run waits for the caches, then runs workers until ctx ends. It returns
// once every worker has stopped.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrashWithContext(ctx)
	ctx = goroutine.WithObserver(ctx, c.opts.Monitor)
	logger := klog.FromContext(ctx)
	logger.Info("Starting HPA controller", "workers", workers)

	wg := goroutine.NewGroup(ctx, "HPA worker")
	defer func() {
		logger.Info("Shutting down HPA controller")
		c.queue.ShutDown()
		wg.Wait()
		c.inFlight.Wait()
	}()

	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced...) {
		return
	}
	c.lane.Resize(workers)
	c.progress.mark(c.opts.Clock.Now())
	for range workers {
		// A panic outside a pass (those are recovered per HPA) restarts
		// the worker a second later instead of losing it.
		wg.Start(func() {
			wait.UntilWithContext(ctx, func(ctx context.Context) { _ = goroutine.Recover(ctx, "HPA worker", func() { c.worker(ctx) }) }, time.Second)
		})
	}
	<-ctx.Done()
}

// HasSynced reports whether every cache the controller reads (the pods and
// each source's HPAs) has synced: what Run waits for before its workers
// start, so a readiness check can ask the controller instead of its caches.
func (c *Controller) HasSynced() bool {
	for _, synced := range c.synced {
		if !synced() {
			return false
		}
	}
	return true
}

// onAdd registers and queues an HPA the informer delivered (package cadence
// says when it is due).
func (c *Controller) onAdd(source int, obj any) {
	key, ok := c.keyInScope(source, obj)
	if !ok {
		return
	}
	c.schedule(key, c.rules.OnAdd(c.opts.Clock.Now()))
	c.register(key)
}

// onUpdate queues an HPA whose object changed.
func (c *Controller) onUpdate(source int, old, cur any) {
	key, ok := c.keyInScope(source, cur)
	if !ok {
		return
	}
	c.schedule(key, c.rules.OnUpdate(cadence.Update{
		GenerationChanged: generationChanged(old, cur),
		SpecChanged:       func() bool { return specChanged(old, cur) },
		HPA:               func() cadence.HPA { return c.cadenceOf(key, cur) },
	}, c.opts.Clock.Now()))
	c.register(key)
}

// keyInScope returns the key of an informer's HPA, and false when it has
// none or lies outside InScope.
func (c *Controller) keyInScope(source int, obj any) (hpaKey, bool) {
	key, err := keyFor(source, obj)
	if err != nil {
		utilruntime.HandleError(err)
		return hpaKey{}, false
	}
	if c.opts.InScope != nil && !c.opts.InScope(key.namespace) {
		return hpaKey{}, false
	}
	return key, true
}

// register counts an HPA the first time it is seen.
func (c *Controller) register(key hpaKey) {
	if c.selectors.register(key) {
		c.opts.Monitor.SetHPACount(c.selectors.len())
	}
}

func (c *Controller) onDelete(source int, obj any) {
	key, ok := c.keyInScope(source, obj)
	if !ok {
		return
	}
	c.queue.Forget(key)
	c.schedule(key, c.rules.OnDelete(c.opts.Clock.Now()))
	if c.selectors.remove(key) {
		c.opts.Monitor.SetHPACount(c.selectors.len())
	}
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

// processNextWorkItem takes the next HPA and runs its pass, holding the
// worker until the pass ends or has run its share of the worker
// (holdWorker): then the pass goes on in the slow lane and the worker
// takes the next HPA.
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	if limit := c.opts.WorkerLimit; limit != nil {
		if !limit.acquire(ctx) {
			// Stopping: the HPA is not passed, and the queue shuts down.
			c.queue.Done(key)
			return false
		}
		// Given back when the worker is free: the pass ended or went on
		// in the slow lane.
		defer limit.release()
	}
	found := c.lookUp(key)
	period := c.opts.SyncPeriod
	if found.exists && found.err == nil {
		period = c.syncPeriodOf(found.hpa)
	}
	slow := c.passes.slow(key)
	hold, admitted := c.lane.Admit(key, flowsOf(key.namespace, found.hpa), slow, period, c.opts.Clock.Now())
	if !admitted {
		c.queue.Done(key)
		return true
	}
	done := make(chan struct{})
	c.startPass(ctx, func() {
		defer close(done)
		c.runPass(ctx, key, found, hold)
	})
	if slow {
		return true
	}
	c.holdWorker(ctx, key, hold, done)
	return true
}

// startPass runs a pass off the worker's goroutine, so that the worker can
// leave a pass that overruns to the slow lane. A panic in the reconcile is
// recovered by reconcileKeyRecovering, one in the pass's bookkeeping by
// pkg/goroutine.
func (c *Controller) startPass(ctx context.Context, pass func()) {
	c.inFlight.Add(1)
	goroutine.Go(ctx, "HPA pass runner", func() {
		defer c.inFlight.Done()
		pass()
	})
}

// runPass reconciles key, then records the pass and queues the HPA's next
// one; the key stays in the queue's processing set until then, so an HPA
// never has two passes under way.
func (c *Controller) runPass(ctx context.Context, key hpaKey, found hpaLookup, hold *laneHold) {
	defer c.queue.Done(key)
	// The reconcile recovers its own panics; one in the bookkeeping around
	// it would leave the HPA out of the queue until its next event, so it
	// comes back with the panic backoff, and the panic goes on to
	// pkg/goroutine, which counts it.
	defer func() {
		if r := recover(); r != nil {
			c.schedule(key, c.rules.AfterPass(cadence.Pass{Ending: cadence.Panicked, Panics: c.passes.panicked(key)}, c.opts.Clock.Now()))
			panic(r)
		}
	}()
	start := c.opts.Clock.Now()
	next, deleted, err := c.reconcileKeyRecovering(ctx, key, found)
	end := c.opts.Clock.Now()
	c.wakeFreed(hold.Release(end))
	c.progress.mark(end)
	// A record of every pass, whatever its outcome: with sharded replicas,
	// it is how one tells from their logs that no HPA was passed by two.
	// Checked first, so that a pass below -v=4 formats nothing.
	if logger := klog.FromContext(ctx).V(4); logger.Enabled() {
		logger.Info("HPA pass", "hpa", key.String(),
			"start", start.UTC().Format(time.RFC3339Nano), "end", end.UTC().Format(time.RFC3339Nano))
	}
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Reconciling HPA failed", "key", key)
	}
	ended := cadence.Pass{HPA: next.hpa, Start: next.last.start, End: end, Paced: next.last.paced, WakeAt: next.last.wakeAt}
	var panicked errPanic
	var stale errStaleCache
	switch {
	case errors.As(err, &stale):
		ended.Ending = cadence.StaleCache
		c.opts.Monitor.ObserveStaleSyncSkip(stale.resource.Group, stale.resource.Resource)
	case deleted:
		ended.Ending = cadence.Deleted
		c.passes.forget(key)
	case errors.As(err, &panicked):
		ended.Ending, ended.Panics = cadence.Panicked, c.passes.panicked(key)
	default:
		// Every HPA comes back after its sync period, whether this pass
		// failed or not.
		c.passes.ended(key, end, passSpeedOf(hold, next, end))
	}
	c.schedule(key, c.rules.AfterPass(ended, c.opts.Clock.Now()))
}

// reconcileKey reconciles the HPA of key, or forgets it when it is gone.
// next says when it is due again.
func (c *Controller) reconcileKey(ctx context.Context, key hpaKey) (next turn, deleted bool, err error) {
	return c.reconcileFound(ctx, key, c.lookUp(key))
}

// hpaLookup is what the cache held for a key when its pass was taken.
type hpaLookup struct {
	hpa    *v2.HorizontalPodAutoscaler
	exists bool
	err    error
}

// lookUp reads key's HPA from its source's cache, once per pass: the
// slow lane needs it before the pass starts (flowsOf).
func (c *Controller) lookUp(key hpaKey) hpaLookup {
	hpa, exists, err := c.opts.Sources[key.source].Get(key.namespace, key.name)
	return hpaLookup{hpa: hpa, exists: exists, err: err}
}

// reconcileFound is reconcileKey with the HPA looked up already.
func (c *Controller) reconcileFound(ctx context.Context, key hpaKey, found hpaLookup) (next turn, deleted bool, err error) {
	source := c.opts.Sources[key.source]
	hpa, exists, err := found.hpa, found.exists, found.err
	if err != nil {
		return turn{hpa: c.cadenceOf(key, nil)}, false, err
	}
	if !exists {
		klog.FromContext(ctx).Info("HPA has been deleted", "hpa", klog.KRef(key.namespace, key.name), "kind", source.Name())
		c.consistency.forget(key)
		c.behavior.Forget(key.String())
		c.opts.Monitor.DeleteHPA(monitor.HPARef{APIVersion: source.Name(), Namespace: key.namespace, Name: key.name})
		return turn{}, true, nil
	}
	next = turn{hpa: c.cadenceOf(key, hpa)}
	if c.opts.Gates.Enabled(features.StaleControllerConsistencyHPA) {
		if err := c.consistency.ensureSeen(key, source.SeenVersion(), resourceOf(source)); err != nil {
			return next, false, err
		}
	}
	next.last, err = c.reconcile(ctx, source, hpa, key)
	return next, false, err
}

// resourceOf names the resource of a source's HPAs, as the stale skips are
// counted: horizontalpodautoscalers.autoscaling for native ones.
func resourceOf(source HPASource) schema.GroupResource {
	gv, _ := schema.ParseGroupVersion(source.Name())
	return schema.GroupResource{Group: gv.Group, Resource: "horizontalpodautoscalers"}
}
