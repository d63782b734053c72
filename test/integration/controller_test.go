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

package integration

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"
	componentmetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// These tests run the controller in the test process against the real
// kube-apiserver, with a fake metrics client and a fake clock: what the API
// server does to status writes, scale updates and conflicts is real, while
// time moves only when the test steps it.

const syncPeriod = 15 * time.Second

// controllerEnv is one running controller.
type controllerEnv struct {
	clock    *clocktesting.FakeClock
	cancel   context.CancelFunc
	done     chan struct{}
	registry componentmetrics.KubeRegistry
	// stopHPAWatch stops the informer of HPAs alone: its cache keeps what
	// it has seen, as a watch that lags does.
	stopHPAWatch context.CancelFunc
}

type controllerOptions struct {
	// namespace is the only one the controller sees: the cluster is
	// shared, and HPAs that other tests (or earlier runs) left elsewhere
	// would otherwise be reconciled, and scaled, alongside the test's own.
	namespace string
	clock     *clocktesting.FakeClock
	metrics   *metricstest.Client
	gates     featuregate.FeatureGate
	// wrapScales lets a test stand between the controller and the scale
	// subresource.
	wrapScales func(scale.ScalesGetter) scale.ScalesGetter
	// wrapHPAs lets a test stand between the controller's HPA client and
	// the API server, as a proxy would.
	wrapHPAs func(http.RoundTripper) http.RoundTripper
}

func startController(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, opts controllerOptions) *controllerEnv {
	t.Helper()
	if opts.namespace == "" {
		t.Fatal("startController needs the test's namespace")
	}
	cfg := cluster.RESTConfig()
	kube := kubernetes.NewForConfigOrDie(cfg)
	hpaCfg := rest.CopyConfig(cfg)
	hpaCfg.WrapTransport = opts.wrapHPAs
	hpas, err := hpaclient.New(hpaCfg)
	if err != nil {
		t.Fatal(err)
	}
	disc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	var scales scale.ScalesGetter
	scales, err = scale.NewForConfig(cfg, mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(disc))
	if err != nil {
		t.Fatal(err)
	}
	if opts.wrapScales != nil {
		scales = opts.wrapScales(scales)
	}
	informer := hpaclient.NewInformer(hpas, opts.namespace, 0)
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(opts.namespace))
	registry := componentmetrics.NewKubeRegistry()
	c, err := podautoscaler.New(podautoscaler.Options{
		Sources:                      []podautoscaler.HPASource{hpaclient.NewSource(hpas, informer)},
		PodInformer:                  factory.Core().V1().Pods(),
		ScaleClient:                  scales,
		Mapper:                       mapper,
		MetricsClient:                opts.metrics,
		EventRecorder:                record.NewFakeRecorder(1000),
		Monitor:                      monitor.New(registry),
		Clock:                        opts.clock,
		Gates:                        opts.gates,
		SyncPeriod:                   syncPeriod,
		Tolerance:                    0.1,
		DownscaleStabilizationWindow: 5 * time.Minute,
		CPUInitializationPeriod:      5 * time.Minute,
		InitialReadinessDelay:        30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	hpaCtx, stopHPAWatch := context.WithCancel(ctx)
	env := &controllerEnv{clock: opts.clock, cancel: cancel, done: make(chan struct{}), registry: registry, stopHPAWatch: stopHPAWatch}
	factory.Start(ctx.Done())
	go informer.RunWithContext(hpaCtx)
	go func() {
		defer close(env.done)
		c.Run(ctx, 2)
		factory.Shutdown()
	}()
	t.Cleanup(env.stop)
	return env
}

func (e *controllerEnv) stop() {
	e.cancel()
	<-e.done
}

// until steps the fake clock by a sync period at a time, so that queued
// HPAs come due, until check holds.
func (e *controllerEnv) until(t *testing.T, what string, check func() (string, bool)) {
	t.Helper()
	var last string
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ok bool
		if last, ok = check(); ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting until %s; last: %s", what, last)
		}
		e.clock.Step(syncPeriod)
		time.Sleep(300 * time.Millisecond)
	}
}

// setUpControllerTest gives a controller test the shared cluster, a
// namespace of its own and the clients it reads and writes with.
func setUpControllerTest(t *testing.T) (*localcluster.Cluster, context.Context, kubernetes.Interface, *hpaclient.Client, string) {
	t.Helper()
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	kube := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	hpas, err := hpaclient.New(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return cluster, ctx, kube, hpas, createNamespace(ctx, t, cluster)
}

func createWorkload(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string, replicas int32) {
	t.Helper()
	createWorkloadSelecting(ctx, t, kube, ns, name, replicas, map[string]string{"app": name})
}

// createWorkloadSelecting creates a Deployment whose pods carry podLabels.
// Nothing runs the Deployment controller here: pods a test needs, it
// creates itself.
func createWorkloadSelecting(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string, replicas int32, podLabels map[string]string) {
	t.Helper()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: podLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Deployment %s: %v", name, err)
	}
}

func externalHPA(ns, name string, maxReplicas int32, fallback *v2.ExternalMetricFallback) *v2.HorizontalPodAutoscaler {
	target := resource.MustParse("10")
	return &v2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MinReplicas:    ptr.To[int32](1),
			MaxReplicas:    maxReplicas,
			Metrics: []v2.MetricSpec{{
				Type: autoscalingv2.ExternalMetricSourceType,
				External: &v2.ExternalMetricSource{
					Metric:   v2.MetricIdentifier{Name: "queue_" + name},
					Target:   autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &target},
					Fallback: fallback,
				},
			}},
		},
	}
}

func deploymentReplicas(ctx context.Context, kube kubernetes.Interface, ns, name string) int32 {
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return -1
	}
	return *d.Spec.Replicas
}

// clockAtSecond starts fake time on a whole second, as the API server
// stores times.
func clockAtSecond() *clocktesting.FakeClock {
	return clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
}

func TestControllerScalesAndWritesStatusThroughTheAPIServer(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "worker", 1)

	fake := metricstest.NewClient().SetExternal("queue_worker", metricstest.ExternalAnswer{Values: []int64{30000}})
	env := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate()})
	if _, err := hpas.Create(ctx, externalHPA(ns, "worker", 10, nil)); err != nil {
		t.Fatal(err)
	}

	// 30 against a target of 10 per ready pod: three times the one pod.
	env.until(t, "the Deployment is scaled to 3", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, "worker")
		return fmt.Sprintf("replicas %d", got), got == 3
	})
	env.until(t, "the status says so", func() (string, bool) {
		hpa, err := hpas.Get(ctx, ns, "worker")
		if err != nil {
			return err.Error(), false
		}
		able := findCondition(hpa, autoscalingv2.AbleToScale)
		ok := hpa.Status.DesiredReplicas == 3 && hpa.Status.LastScaleTime != nil && able != nil &&
			len(hpa.Status.CurrentMetrics) == 1 && hpa.Status.CurrentMetrics[0].External.Current.Value.Value() == 30
		return fmt.Sprintf("%+v", hpa.Status), ok
	})
}

// conflictingScales updates the Deployment behind the controller's back
// right before the controller's first scale update, so that the real API
// server answers that update with a conflict.
type conflictingScales struct {
	scale.ScalesGetter
	kube kubernetes.Interface

	mu        sync.Mutex
	updates   int
	conflicts int
}

func (c *conflictingScales) Scales(namespace string) scale.ScaleInterface {
	return &conflictingScaleInterface{ScaleInterface: c.ScalesGetter.Scales(namespace), parent: c, namespace: namespace}
}

type conflictingScaleInterface struct {
	scale.ScaleInterface
	parent    *conflictingScales
	namespace string
}

func (s *conflictingScaleInterface) Update(ctx context.Context, gr schema.GroupResource, sc *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	s.parent.mu.Lock()
	s.parent.updates++
	first := s.parent.updates == 1
	s.parent.mu.Unlock()
	if first {
		patch := []byte(`{"metadata":{"annotations":{"kube-hpa.io/touched":"by-someone-else"}}}`)
		if _, err := s.parent.kube.AppsV1().Deployments(s.namespace).Patch(ctx, sc.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return nil, err
		}
	}
	out, err := s.ScaleInterface.Update(ctx, gr, sc, opts)
	if apierrors.IsConflict(err) {
		s.parent.mu.Lock()
		s.parent.conflicts++
		s.parent.mu.Unlock()
	}
	return out, err
}

// The controller retries a scale update that conflicts, from a fresh read,
// whether it reads scales from the API or from the scale cache (where the
// conflict sends the re-read to the API).
func TestControllerRetriesAScaleUpdateThatConflicts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		scaleCache bool
	}{
		{name: "scales read from the API"},
		{name: "scales read from the scale cache", scaleCache: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
			createWorkload(ctx, t, kube, ns, "busy", 1)

			conflicting := &conflictingScales{kube: kube}
			fake := metricstest.NewClient().SetExternal("queue_busy", metricstest.ExternalAnswer{Values: []int64{20000}})
			env := startController(ctx, t, cluster, controllerOptions{
				namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate(),
				wrapScales: func(s scale.ScalesGetter) scale.ScalesGetter {
					conflicting.ScalesGetter = s
					if tc.scaleCache {
						return startScaleCache(ctx, t, kube, ns, conflicting)
					}
					return conflicting
				},
			})
			if _, err := hpas.Create(ctx, externalHPA(ns, "busy", 10, nil)); err != nil {
				t.Fatal(err)
			}
			env.until(t, "the Deployment is scaled to 2 despite the conflict", func() (string, bool) {
				got := deploymentReplicas(ctx, kube, ns, "busy")
				return fmt.Sprintf("replicas %d", got), got == 2
			})
			conflicting.mu.Lock()
			defer conflicting.mu.Unlock()
			// The Deployment controller may write the Deployment again in
			// between (our touch makes it sync), so more than one conflict can
			// happen; each must be answered by a retry, and the last one succeed.
			if conflicting.conflicts < 1 || conflicting.updates != conflicting.conflicts+1 {
				t.Errorf("scale updates = %d with %d conflicts; want every conflict retried and the last update to succeed", conflicting.updates, conflicting.conflicts)
			}
		})
	}
}

func TestRestartedControllerKeepsFirstFailureTime(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "orders", 1)
	gates := features.NewFeatureGate()
	if err := gates.SetFromMap(map[string]bool{string(features.HPAExternalMetricFallback): true}); err != nil {
		t.Fatal(err)
	}
	failing := metricstest.NewClient().SetExternal("queue_orders", metricstest.ExternalAnswer{Err: fmt.Errorf("provider down")})
	fallback := &v2.ExternalMetricFallback{FailureDurationSeconds: ptr.To[int64](180), Replicas: 4}
	if _, err := hpas.Create(ctx, externalHPA(ns, "orders", 10, fallback)); err != nil {
		t.Fatal(err)
	}

	// The first controller sees the metric fail and records when.
	first := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: failing, gates: gates})
	var firstFailure time.Time
	first.until(t, "firstFailureTime is in status", func() (string, bool) {
		hpa, err := hpas.Get(ctx, ns, "orders")
		if err != nil || len(hpa.Status.CurrentMetrics) != 1 || hpa.Status.CurrentMetrics[0].External.FirstFailureTime == nil {
			return fmt.Sprintf("%+v %v", hpa.Status, err), false
		}
		firstFailure = hpa.Status.CurrentMetrics[0].External.FirstFailureTime.Time
		return "", true
	})
	first.stop()

	// A new controller, whose memory is empty, starts once the failure
	// has lasted failureDurationSeconds: the fallback is due at its first
	// pass because the persisted time is honored, not restarted.
	clk := clocktesting.NewFakeClock(firstFailure.Add(180 * time.Second))
	second := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clk, metrics: failing, gates: gates})
	second.until(t, "the fallback scales the Deployment to 4", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, "orders")
		return fmt.Sprintf("replicas %d", got), got == 4
	})
	// The status write follows the scale write: wait for the pass that
	// scaled to have recorded it (status says 4 desired).
	var hpa *v2.HorizontalPodAutoscaler
	waitReal(t, "the status of the pass that scaled to 4", func() (string, bool) {
		var err error
		if hpa, err = hpas.Get(ctx, ns, "orders"); err != nil {
			return err.Error(), false
		}
		return fmt.Sprintf("desired %d", hpa.Status.DesiredReplicas), hpa.Status.DesiredReplicas == 4
	})
	ext := hpa.Status.CurrentMetrics[0].External
	if ext.FallbackStatus != v2.FallbackStatusFallback || ext.FirstFailureTime == nil || !ext.FirstFailureTime.Time.Equal(firstFailure) {
		t.Errorf("external status = %+v, want Fallback since %v", ext, firstFailure)
	}
	if c := findCondition(hpa, v2.ExternalMetricFallbackActive); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("ExternalMetricFallbackActive = %+v, want True", c)
	}
}

func findCondition(hpa *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range hpa.Status.Conditions {
		if hpa.Status.Conditions[i].Type == t {
			return &hpa.Status.Conditions[i]
		}
	}
	return nil
}
