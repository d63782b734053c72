package intree

import (
	"context"
	"errors"
	"fmt"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/scale"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// defaultSharingWindow is how long HPAs asking for the same external
// metric share one fetch. kube-controller-manager has no flag for it; this
// is the standalone binary's default, capped at the sync period as there.
const defaultSharingWindow = 15 * time.Second

// Options are what kube-controller-manager has for its HPA controller.
// Every field must be set but Clock.
type Options struct {
	// ClientConfig and Client carry the controller's own identity
	// (kube-controller-manager's "horizontal-pod-autoscaler" client).
	ClientConfig *rest.Config
	Client       kubernetes.Interface
	// Mapper is kube-controller-manager's discovery-backed REST mapper,
	// which it resets periodically itself.
	Mapper apimeta.RESTMapper
	// InformerFactory is kube-controller-manager's; it starts the
	// informers taken from it once every controller is built.
	InformerFactory informers.SharedInformerFactory
	// FeatureGate is kube-controller-manager's --feature-gates.
	FeatureGate featuregate.FeatureGate
	// Metrics is the registry kube-controller-manager serves on /metrics.
	Metrics monitor.Registerer
	// Clock is the real clock when nil.
	Clock clock.WithTicker

	// The HPAController component configuration.
	SyncPeriod                   time.Duration
	DownscaleStabilizationWindow time.Duration
	Tolerance                    float64
	CPUInitializationPeriod      time.Duration
	InitialReadinessDelay        time.Duration
	ConcurrentSyncs              int
}

// Controller is the HPA controller of a kube-controller-manager.
type Controller struct {
	controller *podautoscaler.Controller
	metrics    *metrics.RESTClient
	stopEvents func()
	workers    int
}

// New builds the controller and registers its informers with the factory.
// Events are recorded until ctx ends, as upstream's controller does.
func New(ctx context.Context, opts Options) (*Controller, error) {
	if opts.ClientConfig == nil || opts.Client == nil || opts.Mapper == nil || opts.InformerFactory == nil ||
		opts.FeatureGate == nil || opts.Metrics == nil {
		return nil, errors.New("every option of the in-tree HPA controller but Clock must be set")
	}
	if opts.ConcurrentSyncs < 1 {
		return nil, fmt.Errorf("concurrent HPA syncs must be at least 1, got %d", opts.ConcurrentSyncs)
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	gates, err := features.Derive(opts.FeatureGate)
	if err != nil {
		return nil, err
	}
	scales, err := scale.NewForConfig(rest.CopyConfig(opts.ClientConfig), opts.Mapper, dynamic.LegacyAPIPathResolverFunc,
		scale.NewDiscoveryScaleKindResolver(opts.Client.Discovery()))
	if err != nil {
		return nil, fmt.Errorf("building the HPA scale client: %w", err)
	}
	metricsClient, err := metrics.NewRESTClient(metrics.Options{Config: opts.ClientConfig, Clock: clk})
	if err != nil {
		return nil, fmt.Errorf("building the metrics clients: %w", err)
	}
	recorder, stopEvents, err := podautoscaler.NewEventRecorder(ctx, opts.Client.CoreV1())
	if err != nil {
		return nil, err
	}
	native := opts.InformerFactory.Autoscaling().V2().HorizontalPodAutoscalers()
	// Upstream's timing (SpreadReconciles off) and a GET per scale read:
	// kube-controller-manager has no flags to choose otherwise, and its
	// controller role grants no list or watch on workloads.
	controller, err := podautoscaler.New(podautoscaler.Options{
		Sources:                      []podautoscaler.HPASource{hpaclient.NewNativeSource(opts.Client.AutoscalingV2(), native.Informer())},
		PodInformer:                  opts.InformerFactory.Core().V1().Pods(),
		ScaleClient:                  scales,
		Mapper:                       opts.Mapper,
		MetricsClient:                metrics.NewSharedExternal(metricsClient, min(defaultSharingWindow, opts.SyncPeriod), clk),
		EventRecorder:                recorder,
		Monitor:                      monitor.New(opts.Metrics),
		Clock:                        clk,
		Gates:                        gates,
		SyncPeriod:                   opts.SyncPeriod,
		Tolerance:                    opts.Tolerance,
		DownscaleStabilizationWindow: opts.DownscaleStabilizationWindow,
		CPUInitializationPeriod:      opts.CPUInitializationPeriod,
		InitialReadinessDelay:        opts.InitialReadinessDelay,
	})
	if err != nil {
		stopEvents()
		return nil, err
	}
	return &Controller{controller: controller, metrics: metricsClient, stopEvents: stopEvents, workers: opts.ConcurrentSyncs}, nil
}

// Run runs the controller until ctx ends, once kube-controller-manager has
// started the informer factory.
func (c *Controller) Run(ctx context.Context) {
	defer c.stopEvents()
	klog.FromContext(ctx).Info("Starting kube-hpa's HPA controller in kube-controller-manager")
	go c.metrics.Run(ctx)
	c.controller.Run(ctx, c.workers)
}

// HasSynced reports whether the controller's caches have synced.
func (c *Controller) HasSynced() bool { return c.controller.HasSynced() }
