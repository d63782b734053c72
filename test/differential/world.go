package differential

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing/synctest"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	v1core "k8s.io/client-go/kubernetes/typed/core/v1"
	scalefake "k8s.io/client-go/scale/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	kubemetrics "k8s.io/component-base/metrics"
	upstream "k8s.io/kubernetes/pkg/controller/podautoscaler"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// The controllers' settings: kube-controller-manager's defaults.
const (
	syncPeriod              = 15 * time.Second
	tolerance               = 0.1
	downscaleWindow         = 5 * time.Minute
	cpuInitializationPeriod = 5 * time.Minute
	initialReadinessDelay   = 30 * time.Second
)

// observation is what a user sees after a step: the target's replicas, the
// HPA's status, and the events recorded during the step, in order.
type observation struct {
	Scale  int32
	Status autoscalingv2.HorizontalPodAutoscalerStatus
	Events []string
}

// scaleStore is the target's scale subresource.
type scaleStore struct {
	mu       sync.Mutex
	replicas int32
}

func (s *scaleStore) get() int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replicas
}

func (s *scaleStore) set(n int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replicas = n
}

func (s *scaleStore) client() *scalefake.FakeScaleClient {
	c := &scalefake.FakeScaleClient{}
	c.AddReactor("get", "deployments", func(clienttesting.Action) (bool, runtime.Object, error) {
		n := s.get()
		return true, &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web"},
			Spec:       autoscalingv1.ScaleSpec{Replicas: n},
			Status:     autoscalingv1.ScaleStatus{Replicas: n, Selector: "app=" + appLabel},
		}, nil
	})
	c.AddReactor("update", "deployments", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj := a.(clienttesting.UpdateAction).GetObject().(*autoscalingv1.Scale)
		s.set(obj.Spec.Replicas)
		return true, obj, nil
	})
	return c
}

func restMapper() apimeta.RESTMapper {
	m := apimeta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "apps", Version: "v1"}})
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, apimeta.RESTScopeNamespace)
	return m
}

// controllerKind tells which controller a world runs.
type controllerKind int

const (
	upstreamController controllerKind = iota
	ourController
)

func (k controllerKind) String() string {
	if k == upstreamController {
		return "upstream"
	}
	return "kube-hpa"
}

// run plays the scenario against one controller, in a synctest bubble so
// that time only moves when every goroutine waits: reconciles happen at
// exact multiples of the sync period from the HPA's creation, and each step
// lands halfway between two of them. It returns one observation per step.
func (s seqScenario) run(kind controllerKind) ([]observation, error) {
	events := &eventLog{}
	ctx, cancel := context.WithCancel(eventLogContext(context.Background(), events))
	defer cancel()
	t0 := time.Now()
	// NewClientset's field-managed tracker builds a REST mapper of every
	// built-in type on each request, which is most of a run's time; the
	// plain tracker is all a controller needs.
	client := fake.NewSimpleClientset(s.hpa()) //nolint:staticcheck // see above
	uniqueEventNames(client)
	factory := informers.NewSharedInformerFactory(client, 0)
	scales := &scaleStore{replicas: s.Start}
	f := newFakeMetrics()
	hpaInformer := factory.Autoscaling().V2().HorizontalPodAutoscalers()
	podInformer := factory.Core().V1().Pods()

	var runController func()
	switch kind {
	case upstreamController:
		c := upstream.NewHorizontalController(ctx, client.CoreV1(), scales.client(), client.AutoscalingV2(), restMapper(), upstreamClient{f},
			hpaInformer, podInformer, syncPeriod, downscaleWindow+s.windowNudge, tolerance, cpuInitializationPeriod, initialReadinessDelay)
		runController = func() { c.Run(ctx, 1) }
	case ourController:
		broadcaster := record.NewBroadcaster(record.WithContext(ctx))
		broadcaster.StartStructuredLogging(eventLoggingLevel)
		broadcaster.StartRecordingToSink(&v1core.EventSinkImpl{Interface: client.CoreV1().Events("")})
		c, err := podautoscaler.New(podautoscaler.Options{
			Sources:                      []podautoscaler.HPASource{hpaclient.NewNativeSource(client.AutoscalingV2(), hpaInformer.Informer())},
			PodInformer:                  podInformer,
			ScaleClient:                  scales.client(),
			Mapper:                       restMapper(),
			MetricsClient:                ourClient{f},
			EventRecorder:                broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "horizontal-pod-autoscaler"}),
			Monitor:                      monitor.New(kubemetrics.NewKubeRegistry()),
			Clock:                        clock.RealClock{},
			Gates:                        features.NewFeatureGate(),
			SyncPeriod:                   syncPeriod,
			Tolerance:                    tolerance,
			DownscaleStabilizationWindow: downscaleWindow + s.windowNudge,
			CPUInitializationPeriod:      cpuInitializationPeriod,
			InitialReadinessDelay:        initialReadinessDelay,
		})
		if err != nil {
			return nil, err
		}
		runController = func() { c.Run(ctx, 1) }
	}
	factory.Start(ctx.Done())
	var wg sync.WaitGroup
	wg.Go(runController)
	defer func() {
		cancel()
		wg.Wait()
		factory.Shutdown()
	}()

	// Halfway to the first reconcile.
	time.Sleep(syncPeriod / 2)
	var out []observation
	for _, st := range s.Steps {
		if err := s.apply(ctx, st, client, scales, f); err != nil {
			return nil, err
		}
		synctest.Wait()
		time.Sleep(time.Duration(st.Advance) * syncPeriod)
		synctest.Wait()
		o, err := observe(ctx, client, scales, t0)
		if err != nil {
			return nil, err
		}
		o.Events = events.take()
		out = append(out, o)
	}
	return out, nil
}

// apply makes the world what the step says.
func (s seqScenario) apply(ctx context.Context, st step, client *fake.Clientset, scales *scaleStore, f *fakeMetrics) error {
	now := time.Now()
	if st.Manual >= 0 {
		scales.set(st.Manual)
	}
	pods := client.CoreV1().Pods(namespace)
	existing, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, p := range st.Pods {
		keep[p.Name] = true
		obj := p.object(now)
		if slices.ContainsFunc(existing.Items, func(e corev1.Pod) bool { return e.Name == p.Name }) {
			_, err = pods.Update(ctx, obj, metav1.UpdateOptions{})
		} else {
			_, err = pods.Create(ctx, obj, metav1.CreateOptions{})
		}
		if err != nil {
			return err
		}
	}
	for _, e := range existing.Items {
		if !keep[e.Name] {
			if err := pods.Delete(ctx, e.Name, metav1.DeleteOptions{}); err != nil {
				return err
			}
		}
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	readings := map[string]podReading{}
	for _, p := range st.Pods {
		if p.HasMetric {
			readings[p.Name] = podReading{value: p.Metric, timestamp: now.Add(-time.Duration(p.MetricAgo) * time.Second), window: time.Duration(p.Window) * time.Second}
		}
	}
	for i, m := range s.Metrics {
		var err error
		if slices.Contains(st.Errs, i) {
			err = errAdapter
		}
		switch m.Type {
		case "Resource", "ContainerResource":
			// Both resource metrics of one name read the same; the
			// error of the last one wins.
			f.resource[corev1.ResourceName(m.Name)] = podAnswer{readings: readings, err: err}
		case "Pods":
			f.pods[m.Name] = podAnswer{readings: readings, err: err}
		case "Object":
			f.object[m.Name] = objectAnswer{value: st.Values[i], timestamp: now, err: err}
		default:
			f.external[m.Name] = externalAnswer{values: []int64{st.Values[i]}, timestamp: now, err: err}
		}
	}
	return nil
}

func observe(ctx context.Context, client *fake.Clientset, scales *scaleStore, t0 time.Time) (observation, error) {
	hpa, err := client.AutoscalingV2().HorizontalPodAutoscalers(namespace).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		return observation{}, err
	}
	return observation{Scale: scales.get(), Status: *relativeTimes(hpa.Status.DeepCopy(), t0)}, nil
}

// relativeTimes makes the status' times relative to the world's start, so
// that two worlds compare.
func relativeTimes(st *autoscalingv2.HorizontalPodAutoscalerStatus, t0 time.Time) *autoscalingv2.HorizontalPodAutoscalerStatus {
	rel := func(t metav1.Time) metav1.Time {
		if t.IsZero() {
			return t
		}
		return metav1.NewTime(time.Unix(0, 0).UTC().Add(t.Sub(t0)))
	}
	if st.LastScaleTime != nil {
		t := rel(*st.LastScaleTime)
		st.LastScaleTime = &t
	}
	for i := range st.Conditions {
		st.Conditions[i].LastTransitionTime = rel(st.Conditions[i].LastTransitionTime)
	}
	return st
}

func (o observation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scale=%d current=%d desired=%d", o.Scale, o.Status.CurrentReplicas, o.Status.DesiredReplicas)
	if o.Status.LastScaleTime != nil {
		fmt.Fprintf(&b, " lastScale=+%s", o.Status.LastScaleTime.Sub(time.Unix(0, 0)))
	}
	b.WriteString("\n      metrics: ")
	b.WriteString(metricsText(o.Status.CurrentMetrics))
	for _, c := range o.Status.Conditions {
		fmt.Fprintf(&b, "\n      %s=%s %s %q (+%s)", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.Sub(time.Unix(0, 0)))
	}
	for _, e := range o.Events {
		b.WriteString("\n      event ")
		b.WriteString(e)
	}
	return b.String()
}

// uniqueEventNames makes the fake API server give every new event a name of
// its own. The recorder names an event after its object and the time in
// nanoseconds, which a real clock never repeats but the bubble's, standing
// still during a reconcile, does: the second event of a pass would be
// refused as a duplicate, and the recorder retry after a random sleep.
func uniqueEventNames(client *fake.Clientset) {
	var n int
	client.PrependReactor("create", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		n++
		e := a.(clienttesting.CreateAction).GetObject().(*corev1.Event)
		e.Name = fmt.Sprintf("%s.%d", e.Name, n)
		return false, nil, nil
	})
}
